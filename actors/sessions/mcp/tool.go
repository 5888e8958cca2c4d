package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/samber/lo"
	"github.com/troupehq/troupe/runtime/tools"
)

// emptySchema stands in for a tool that declares no input schema.
var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

// tool is one of the server's tools as the model sees it. It holds the
// actor, not the connection, so it follows the actor across restarts.
type tool struct {
	server string // ServerConfig.Name
	name   string // the exposed name; see ToolName
	remote string // the name the server knows it by
	desc   string
	params json.RawMessage
	sys    *actor.ActorSystem
	owner  *actor.PID
}

var _ tools.Tool = (*tool)(nil)

func newTools(server string, listed []*sdk.Tool, sys *actor.ActorSystem, owner *actor.PID) []tools.Tool {
	names := toolNames(server, lo.Map(listed, func(t *sdk.Tool, _ int) string { return t.Name }))
	out := make([]tools.Tool, len(listed))
	for i, t := range listed {
		out[i] = &tool{
			server: server,
			name:   names[i],
			remote: t.Name,
			desc:   description(server, t),
			params: schema(t.InputSchema),
			sys:    sys,
			owner:  owner,
		}
	}
	return out
}

func description(server string, t *sdk.Tool) string {
	switch {
	case t.Description != "":
		return t.Description
	case t.Title != "":
		return t.Title
	}
	return fmt.Sprintf("Tool %s of MCP server %s.", t.Name, server)
}

func schema(s any) json.RawMessage {
	if s == nil {
		return emptySchema
	}
	b, err := json.Marshal(s)
	if err != nil || string(b) == "null" {
		return emptySchema
	}
	return b
}

func (t *tool) Name() string                { return t.name }
func (t *tool) Description() string         { return t.desc }
func (t *tool) Parameters() json.RawMessage { return t.params }
func (t *tool) Category() tools.Category    { return tools.CategoryMCP }

// Run calls the tool on the server; the server's notifications/progress
// for the call reach progress. Everything that goes wrong on the
// server's side, including an unreachable or stopped server, is an error
// result for the model; Run never returns a non-nil error.
func (t *tool) Run(ctx context.Context, call tools.Call, progress func(string)) (tools.Result, error) {
	args, err := arguments(call.Args)
	if err != nil {
		return errorResult(fmt.Sprintf("%s: %v", t.name, err)), nil
	}
	var res *sdk.CallToolResult
	// A connection that ended before the call was sent is asked for again
	// once: the actor, told so, answers after its restart.
	for range 2 {
		var c *conn
		c, err = t.conn(ctx)
		if ctx.Err() != nil {
			return cancelled(t.name), nil
		}
		if err != nil {
			return errorResult(fmt.Sprintf("%s: %v", t.name, err)), nil
		}
		res, err = c.callTool(ctx, t.remote, args, progress)
		if !errors.Is(err, errNotSent) {
			break
		}
	}
	if ctx.Err() != nil {
		return cancelled(t.name), nil
	}
	if err != nil {
		return errorResult(fmt.Sprintf("%s: %v", t.name, err)), nil
	}
	return toResult(res, call.SpillDir), nil
}

// conn asks the owning actor for its connection, giving up when ctx ends.
// The goroutine ends when the future does, at the latest after connWait.
func (t *tool) conn(ctx context.Context) (*conn, error) {
	// The actor answers once connected, so wait a little longer than a
	// connect may take.
	f := t.sys.Root.RequestFuture(t.owner, &getConn{}, connectTimeout+5*time.Second)
	type answer struct {
		msg any
		err error
	}
	ch := make(chan answer, 1)
	go func() {
		msg, err := f.Result()
		ch <- answer{msg, err}
	}()
	var a answer
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case a = <-ch:
	}
	if a.err != nil {
		return nil, fmt.Errorf("mcp server %q: not running (%v)", t.server, a.err)
	}
	r, ok := a.msg.(*connReply)
	if !ok {
		return nil, fmt.Errorf("mcp server %q: unexpected reply %T", t.server, a.msg)
	}
	return r.conn, r.err
}

// arguments checks that the model sent a JSON object (or nothing).
func arguments(raw json.RawMessage) (json.RawMessage, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, fmt.Errorf("arguments must be a JSON object: %v", err)
	}
	if obj == nil {
		return nil, nil // "null"
	}
	return raw, nil
}
