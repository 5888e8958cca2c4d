package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// exitCrash is the status the server exits with when told to crash.
const exitCrash = 3

type progressIn struct {
	Steps int `json:"steps" jsonschema:"how many progress notifications to send"`
	MS    int `json:"ms" jsonschema:"milliseconds between them"`
}

type addToolIn struct {
	Name string `json:"name" jsonschema:"the new tool's name"`
}

// addDynamicTools registers the tools that exercise a client's handling of
// progress, tool list changes and crashes.
func addDynamicTools(s *mcp.Server, m marker) {
	listed := listWatch(s)
	mcp.AddTool(s, &mcp.Tool{Name: "progress", Description: "Send progress notifications, then answer"},
		func(ctx context.Context, req *mcp.CallToolRequest, in progressIn) (*mcp.CallToolResult, any, error) {
			m.mark("progress")
			token := req.Params.GetProgressToken()
			for i := 1; i <= in.Steps; i++ {
				if token != nil {
					err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
						ProgressToken: token, Progress: float64(i), Total: float64(in.Steps), Message: fmt.Sprintf("step %d", i),
					})
					if err != nil {
						return nil, nil, err
					}
				}
				select {
				case <-time.After(time.Duration(in.MS) * time.Millisecond):
				case <-ctx.Done():
					return nil, nil, ctx.Err()
				}
			}
			return text(fmt.Sprintf("done after %d steps", in.Steps)), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "add_tool", Description: "Add a tool to this server"},
		func(ctx context.Context, _ *mcp.CallToolRequest, in addToolIn) (*mcp.CallToolResult, any, error) {
			m.mark("add_tool")
			if in.Name == "" {
				return nil, nil, fmt.Errorf("add_tool: empty name")
			}
			before := listed.Load()
			name := in.Name
			mcp.AddTool(s, &mcp.Tool{Name: name, Description: "A tool added by add_tool"},
				func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
					m.mark(name)
					return text("added:" + name), nil, nil
				})
			// The SDK sends list_changed shortly after; answering once the
			// client has listed again makes the order certain for tests.
			deadline := time.Now().Add(5 * time.Second)
			for listed.Load() == before && time.Now().Before(deadline) && ctx.Err() == nil {
				time.Sleep(5 * time.Millisecond)
			}
			return text("added " + name), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "crash", Description: "Exit at once without answering"},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			m.mark("crash")
			os.Exit(exitCrash)
			return nil, nil, nil
		})
}

// listWatch counts the tools/list requests the server has answered.
func listWatch(s *mcp.Server) *atomic.Int64 {
	var n atomic.Int64
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if method == "tools/list" {
				n.Add(1)
			}
			return res, err
		}
	})
	return &n
}

// addCrashAt makes the nth tool call exit instead of answering.
func addCrashAt(s *mcp.Server, nth int) {
	if nth <= 0 {
		return
	}
	var calls atomic.Int64
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/call" && calls.Add(1) == int64(nth) {
				fmt.Fprintf(os.Stderr, "troupe-mcptest: crashing at call %d (-crash-at)\n", nth)
				os.Exit(exitCrash)
			}
			return next(ctx, method, req)
		}
	})
}

// writePID records this start in dir, when given.
func writePID(dir string) error {
	if dir == "" {
		return nil
	}
	name := filepath.Join(dir, strconv.Itoa(os.Getpid()))
	if err := os.WriteFile(name, []byte(strconv.FormatInt(time.Now().UnixNano(), 10)), 0o644); err != nil {
		return fmt.Errorf("write pid: %w", err)
	}
	return nil
}
