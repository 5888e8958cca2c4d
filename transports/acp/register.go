package acp

import (
	"encoding/json"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/transports/acp/pipeline"
	"github.com/troupehq/troupe/transports/jsonrpc"
)

// A process's registrations: MCP tools offered to agents at /mcp/<name>
// and slash-command verbs (`/hydra <name> <verb>`), kept by the pipeline
// until the process's connection closes.

type mcpRegisterParams struct {
	Instructions string             `json:"instructions"`
	Tools        []pipeline.MCPTool `json:"tools"`
}

// mcpToolsRegister records (or replaces) the calling process's tools.
func (c *conn) mcpToolsRegister(ctx actor.Context, id, params json.RawMessage) {
	var p mcpRegisterParams
	if !c.decodeParams(ctx, id, params, &p) {
		return
	}
	for i, t := range p.Tools {
		if t.Name == "" || t.Description == "" || len(t.InputSchema) == 0 || jsonrpc.IsNull(t.InputSchema) {
			c.fail(ctx, id, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: tools["+itoa(i)+"] needs name, description and inputSchema"))
			return
		}
	}
	c.cfg.Pipeline.RegisterTools(c.peer.Name, ctx.Self(), p.Instructions, p.Tools)
	c.reply(ctx, id, map[string]any{"ok": true, "registered": len(p.Tools)})
}

// commandsRegister records (or replaces) the calling process's verbs.
func (c *conn) commandsRegister(ctx actor.Context, id, params json.RawMessage) {
	var p struct {
		Commands []pipeline.CommandSpec `json:"commands"`
	}
	if !c.decodeParams(ctx, id, params, &p) {
		return
	}
	verbs := map[string]bool{}
	for i, cmd := range p.Commands {
		if cmd.Verb == "" {
			c.fail(ctx, id, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: commands["+itoa(i)+"].verb is required"))
			return
		}
		verbs[cmd.Verb] = true
	}
	c.cfg.Pipeline.RegisterCommands(c.peer.Name, ctx.Self(), p.Commands)
	c.reply(ctx, id, map[string]any{"ok": true, "registered": len(verbs)})
	c.announceCommands(ctx)
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}
