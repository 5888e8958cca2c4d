package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/samber/lo"
	"github.com/troupehq/troupe/actors/sessions/mcp"
	"github.com/troupehq/troupe/runtime/tools"
)

// startMCP spawns one child per MCP server the manifest names (the
// sessions' MCP client actor: its process in its own group) and asks each
// for its tools; the answers come back as *mcp.ToolsReply.
func (r *runner) startMCP(ctx actor.Context) {
	for _, s := range r.opts.Manifest.MCP {
		cfg := mcp.ServerConfig{Name: s.Name, Command: s.Command, Args: s.Args, URL: s.URL}
		if s.URL != "" {
			cfg.Type = mcp.TransportHTTP
		}
		cfg.Env = lo.MapToSlice(r.opts.Manifest.Env, func(k, v string) mcp.EnvVariable { return mcp.EnvVariable{Name: k, Value: v} })
		pid := ctx.Spawn(mcp.Props(cfg, r.opts.Cwd))
		ctx.Request(pid, &mcp.GetTools{})
		r.mcpPending++
	}
}

// onMCPTools keeps a server's tools; the loop begins once every server
// and the entry point are in. A server that cannot be reached ends the run.
func (r *runner) onMCPTools(ctx actor.Context, msg *mcp.ToolsReply) {
	if r.ended {
		return
	}
	if msg.Err != nil {
		r.finish(ctx, Result{}, fmt.Errorf("agent %s: %w", r.opts.Manifest.Name, msg.Err))
		return
	}
	r.mcpPending--
	r.mcpTools = append(r.mcpTools, msg.Tools...)
	r.maybeBegin(ctx)
}

// mcpCall runs one MCP tool on the worker, as the model reads it.
func mcpCall(ctx context.Context, t tools.Tool, cwd, args string) string {
	res, err := t.Run(ctx, tools.Call{Cwd: cwd, Args: json.RawMessage(args)}, nil)
	switch {
	case err != nil:
		return "Error: " + err.Error()
	case res.IsError && !strings.HasPrefix(res.Output, "Error"):
		return "Error: " + res.Output
	}
	if res.Output == "" {
		return "OK"
	}
	return res.Output
}
