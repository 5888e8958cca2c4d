package main

import (
	"context"
	"encoding/base64"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type options struct {
	callsDir string
	pageSize int
	crashAt  int // the tool call that exits instead of answering; 0 never
}

// newServer builds the MCP server with every test tool registered.
func newServer(opts options) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "troupe-mcptest", Version: "1"},
		&mcp.ServerOptions{PageSize: opts.pageSize, Logger: slog.New(slog.DiscardHandler)})
	m := marker{dir: opts.callsDir}
	addCrashAt(s, opts.crashAt)

	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo text back, prefixed with echo:"},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			m.mark("echo")
			return text("echo:" + in.Text), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "add", Description: "Add two numbers"},
		func(_ context.Context, _ *mcp.CallToolRequest, in addIn) (*mcp.CallToolResult, addOut, error) {
			m.mark("add")
			sum := in.A + in.B
			return text(fmt.Sprint(sum)), addOut{Sum: sum}, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "fail", Description: "Always fail"},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			m.mark("fail")
			return nil, nil, fmt.Errorf("fail: requested failure")
		})
	mcp.AddTool(s, &mcp.Tool{Name: "sleep", Description: "Wait ms milliseconds"},
		func(ctx context.Context, _ *mcp.CallToolRequest, in sleepIn) (*mcp.CallToolResult, any, error) {
			m.mark("sleep")
			select {
			case <-time.After(time.Duration(in.MS) * time.Millisecond):
				return text("slept"), nil, nil
			case <-ctx.Done():
				m.mark("cancelled-sleep")
				return nil, nil, ctx.Err()
			}
		})
	mcp.AddTool(s, &mcp.Tool{Name: "mixed", Description: "Return one of each content type"},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			m.mark("mixed")
			return mixed(), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "env", Description: "Read an environment variable"},
		func(_ context.Context, _ *mcp.CallToolRequest, in envIn) (*mcp.CallToolResult, any, error) {
			m.mark("env")
			return text(os.Getenv(in.Name)), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "cwd", Description: "Print the working directory"},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			m.mark("cwd")
			wd, err := os.Getwd()
			if err != nil {
				return nil, nil, err
			}
			return text(wd), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "pid", Description: "Print the server's process id"},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			m.mark("pid")
			return text(strconv.Itoa(os.Getpid())), nil, nil
		})
	addDynamicTools(s, m)
	return s
}

type echoIn struct {
	Text string `json:"text" jsonschema:"the text to echo"`
}

type addIn struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}

type addOut struct {
	Sum float64 `json:"sum"`
}

type sleepIn struct {
	MS int `json:"ms" jsonschema:"milliseconds to wait"`
}

type envIn struct {
	Name string `json:"name"`
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// onePixelPNG is a valid 1x1 PNG, so clients that decode images can.
var onePixelPNG, _ = base64.StdEncoding.DecodeString(
	"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")

func mixed() *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{
		&mcp.TextContent{Text: "first"},
		&mcp.ImageContent{Data: onePixelPNG, MIMEType: "image/png"},
		&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///notes.txt", MIMEType: "text/plain", Text: "note body"}},
		&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///blob.bin", MIMEType: "application/octet-stream", Blob: []byte{1, 2, 3}}},
		&mcp.ResourceLink{URI: "file:///linked.md", Name: "linked"},
	}}
}

// marker records calls as files, so tests in another process can count them.
type marker struct{ dir string }

func (m marker) mark(name string) {
	if m.dir == "" {
		return
	}
	f, err := os.CreateTemp(m.dir, name+"-*.call")
	if err != nil {
		fmt.Fprintln(os.Stderr, "troupe-mcptest: mark call:", err)
		return
	}
	_ = f.Close()
}
