package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/troupehq/troupe/transports/httpjson"
	"github.com/troupehq/troupe/transports/jsonrpc"
)

// mcpCallTimeout bounds one tool call forwarded to its process.
const mcpCallTimeout = 5 * time.Minute

// tools are the MCP tools each process registered
// (hydra-acp/mcp_tools/register), by process name, served to agents at
// /mcp/<name>.
type tools struct {
	mu     sync.Mutex
	byName map[string]*mcpServer
}

// mcpServer is what a process registered with hydra-acp/mcp_tools/register.
type mcpServer struct {
	conn         *actor.PID
	instructions string
	tools        []MCPTool
}

// MCPTool is one tool a process offers agents.
type MCPTool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
}

// RegisterTools records (or replaces) process name's tools, served by its
// connection conn.
func (t *tools) RegisterTools(name string, conn *actor.PID, instructions string, tools []MCPTool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.byName[name] = &mcpServer{conn: conn, instructions: instructions, tools: tools}
}

// drop forgets conn's registration when it closes.
func (t *tools) drop(name string, conn *actor.PID) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if s := t.byName[name]; s != nil && s.conn.Equal(conn) {
		delete(t.byName, name)
	}
}

func (t *tools) server(name string) (*mcpServer, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s, ok := t.byName[name]
	return s, ok
}

// mcpDescriptors returns an HTTP MCP descriptor per process that
// registered tools, with session's capability token, for its mcpServers.
func (p *Pipeline) mcpDescriptors(session string) []json.RawMessage {
	p.tools.mu.Lock()
	defer p.tools.mu.Unlock()
	if len(p.tools.byName) == 0 || p.MCPBaseURL == "" {
		return nil
	}
	tok := p.Tokens.Mint(session)
	names := slices.Sorted(maps.Keys(p.tools.byName))
	out := make([]json.RawMessage, 0, len(names))
	for _, n := range names {
		d, _ := json.Marshal(map[string]any{"type": "http", "name": n, "url": p.MCPBaseURL + "/mcp/" + n,
			"headers": []any{map[string]string{"name": "Authorization", "value": "Bearer " + tok}}})
		out = append(out, d)
	}
	return out
}

// capSession is the session a capability token was minted for.
func (p *Pipeline) capSession(tok string) (string, bool) {
	if tok == "" {
		return "", false
	}
	return p.Tokens.Check(tok)
}

// withMCP appends descriptors to a session/new's mcpServers.
func withMCP(servers json.RawMessage, add []json.RawMessage) json.RawMessage {
	if len(add) == 0 {
		return servers
	}
	var list []json.RawMessage
	if len(servers) > 0 && !jsonrpc.IsNull(servers) {
		_ = json.Unmarshal(servers, &list)
	}
	b, _ := json.Marshal(append(list, add...))
	return b
}

// MCPHandler serves /mcp/{name}: the tools process name registered, over
// Streamable HTTP, to an agent presenting its session's capability token
// (the daemon's own bearer is not asked for). A call is forwarded to the
// process as hydra-acp/mcp_tools/invoke with the session the token names.
func (p *Pipeline) MCPHandler(system *actor.ActorSystem) http.Handler {
	type key struct{}
	h := mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server {
		s, _ := r.Context().Value(key{}).(*mcp.Server)
		return s
	}, &mcp.StreamableHTTPOptions{Stateless: true})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The token first: without one, a registered name and an unknown
		// one get the same answer.
		tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		session, ok := p.capSession(strings.TrimSpace(tok))
		if !ok {
			httpjson.Error(w, http.StatusUnauthorized, "missing or invalid capability token")
			return
		}
		name := r.PathValue("name")
		spec, ok := p.tools.server(name)
		if !ok {
			httpjson.Error(w, http.StatusNotFound, "no MCP server "+name)
			return
		}
		srv := mcp.NewServer(&mcp.Implementation{Name: name, Version: "troupe"}, &mcp.ServerOptions{Instructions: spec.instructions})
		for _, t := range spec.tools {
			tool := &mcp.Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema}
			if len(t.OutputSchema) > 0 {
				tool.OutputSchema = t.OutputSchema
			}
			srv.AddTool(tool, forwardTool(system, spec.conn, name, t.Name, session))
		}
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), key{}, srv)))
	})
}

// forwardTool asks the registering process's connection to invoke the tool
// and waits (in the HTTP request's goroutine) for its answer.
func forwardTool(system *actor.ActorSystem, conn *actor.PID, server, tool, session string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args := req.Params.Arguments
		if len(args) == 0 {
			args = json.RawMessage("{}")
		}
		ans, err := callProcess(ctx, system, conn, mcpCallTimeout, "hydra-acp/mcp_tools/invoke",
			map[string]any{"server": server, "tool": tool, "args": args, "sessionId": session})
		if err != nil {
			return nil, err
		}
		if ans.Error != nil {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: ans.Error.Message}}}, nil
		}
		var out mcp.CallToolResult
		if err := json.Unmarshal(ans.Result, &out); err != nil {
			return nil, errors.New("the process answered no CallToolResult: " + err.Error())
		}
		return &out, nil
	}
}

// callProcess sends a process's connection a request and waits for the
// answer, outside any actor (an HTTP handler, a model call): the answer
// comes to a future (protoactor's own one-shot process, not an actor),
// and ctx or the timeout ends the wait.
func callProcess(ctx context.Context, system *actor.ActorSystem, conn *actor.PID, timeout time.Duration, method string, params any) (jsonrpc.Message, error) {
	f := actor.NewFuture(system, timeout)
	system.Root.Send(conn, &Call{Method: method, Params: params, Reply: f.PID()})
	type result struct {
		v   any
		err error
	}
	// Ends by the timeout at the latest, whoever stopped waiting.
	done := make(chan result, 1)
	go func() {
		v, err := f.Result()
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		if errors.Is(r.err, actor.ErrTimeout) {
			return jsonrpc.Message{}, errors.New("the process did not answer " + method + " within " + timeout.String())
		}
		if r.err != nil {
			return jsonrpc.Message{}, r.err
		}
		a, ok := r.v.(*Answer)
		if !ok {
			return jsonrpc.Message{}, fmt.Errorf("the process answered %s with %T", method, r.v)
		}
		return a.M, nil
	case <-ctx.Done():
		return jsonrpc.Message{}, ctx.Err()
	}
}
