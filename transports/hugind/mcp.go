package hugind

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	wire "github.com/troupehq/troupe/transports/jsonrpc"
)

// requestIDKey carries a tools/call's JSON-RPC id to its handler, put in
// the call's _meta by the transport: the hugind notifications name it.
const requestIDKey = "troupe/request_id"

// isMCP reports whether a line is MCP JSON-RPC: "jsonrpc":"2.0", or a
// line naming "jsonrpc" that is not even JSON, which then gets JSON-RPC's
// parse error rather than NDJSON's.
func isMCP(line []byte) bool {
	if !bytes.Contains(line, []byte(`"jsonrpc"`)) {
		return false
	}
	var v struct {
		JSONRPC any `json:"jsonrpc"`
	}
	if err := json.Unmarshal(line, &v); err != nil {
		var se *json.SyntaxError
		return errors.As(err, &se) || errors.Is(err, io.ErrUnexpectedEOF)
	}
	return v.JSONRPC == "2.0"
}

// mcpConn is the MCP side of stdin and stdout for the SDK: the bridge
// feeds it the MCP lines it reads, and what the SDK writes goes out as
// lines among the NDJSON ones.
type mcpConn struct {
	in     chan jsonrpc.Message
	out    *out
	closed chan struct{}
	once   sync.Once

	// pending counts the calls read and not yet answered, so that EOF
	// waits for their answers as it does for NDJSON requests'.
	mu      sync.Mutex
	pending map[string]bool
	idle    *sync.Cond
}

func newMCPConn(o *out) *mcpConn {
	c := &mcpConn{in: make(chan jsonrpc.Message, 64), out: o, closed: make(chan struct{}), pending: map[string]bool{}}
	c.idle = sync.NewCond(&c.mu)
	return c
}

func idKey(id jsonrpc.ID) string { return fmt.Sprintf("%T:%v", id.Raw(), id.Raw()) }

// drain waits until every call read has been answered.
func (c *mcpConn) drain() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for len(c.pending) > 0 {
		c.idle.Wait()
	}
}

func (c *mcpConn) Connect(context.Context) (mcp.Connection, error) { return c, nil }

func (c *mcpConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case m := <-c.in:
		return m, nil
	case <-c.closed:
		return nil, errors.New("stdin closed")
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (c *mcpConn) Write(_ context.Context, m jsonrpc.Message) error {
	b, err := jsonrpc.EncodeMessage(m)
	if err != nil {
		return fmt.Errorf("encode mcp message: %w", err)
	}
	err = c.out.raw(b)
	if resp, ok := m.(*jsonrpc.Response); ok {
		c.mu.Lock()
		delete(c.pending, idKey(resp.ID))
		c.idle.Broadcast()
		c.mu.Unlock()
	}
	return err
}

func (c *mcpConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}

func (c *mcpConn) SessionID() string { return "" }

// feed hands one MCP line to the SDK; a line it cannot decode gets a
// JSON-RPC parse error. A tools/call gets its id put in its _meta.
func (c *mcpConn) feed(line []byte) {
	m, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		// The envelope's sorted keys are what the golden transcripts pin.
		c.out.write(map[string]any{"jsonrpc": "2.0", "id": wire.Null, "error": wire.NewError(wire.CodeParseError, err.Error())})
		return
	}
	if req, ok := m.(*jsonrpc.Request); ok && req.ID.IsValid() {
		c.mu.Lock()
		c.pending[idKey(req.ID)] = true
		c.mu.Unlock()
		if req.Method == "tools/call" {
			req.Params = withRequestID(req.Params, req.ID.Raw())
		}
	}
	select {
	case c.in <- m:
	case <-c.closed:
	}
}

func withRequestID(params json.RawMessage, id any) json.RawMessage {
	var p map[string]any
	if json.Unmarshal(params, &p) != nil || p == nil {
		return params // the SDK answers its own error for these
	}
	meta, _ := p["_meta"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
	}
	meta[requestIDKey] = id
	p["_meta"] = meta
	b, err := json.Marshal(p)
	if err != nil {
		return params
	}
	return b
}

// serveMCP runs the SDK's server on conn until conn closes: one tool per
// method, with its params' JSON Schema.
func (b *Bridge) serveMCP(ctx context.Context, conn *mcpConn) (*mcp.ServerSession, error) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "troupe", Version: "1"}, nil)
	b.AddTools(srv, func(_ context.Context, req *mcp.CallToolRequest) func(string, any) {
		id := req.Params.Meta[requestIDKey]
		return func(event string, data any) {
			conn.out.write(wire.NewNotification("notifications/hugind."+event, map[string]any{"id": id, "data": data}))
		}
	})
	return srv.Connect(ctx, conn, nil)
}

// Emitter returns what sends the events (status, progress, log) of the
// tools/call req to its client; it is called once per call.
type Emitter func(ctx context.Context, req *mcp.CallToolRequest) func(event string, data any)

// AddTools adds one tool per method to srv, with the JSON Schema of its
// params; each call's events go to emit. The bridge's own MCP and troupe's
// MCP transport (transports/mcp) share them.
func (b *Bridge) AddTools(srv *mcp.Server, emit Emitter) {
	for _, name := range slices.Sorted(maps.Keys(methods)) {
		doc := toolDocs[name]
		srv.AddTool(&mcp.Tool{Name: name, Description: doc.description, InputSchema: doc.schema}, b.tool(name, emit))
	}
}

// tool runs method name for tools/call: its events go to emit, its result
// as MCP text content holding the JSON, its error as an error result with
// the code.
func (b *Bridge) tool(name string, emit Emitter) mcp.ToolHandler {
	h := methods[name]
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args := req.Params.Arguments
		if len(bytes.TrimSpace(args)) == 0 || bytes.Equal(bytes.TrimSpace(args), []byte("null")) {
			args = json.RawMessage("{}")
		}
		id := fmt.Sprint(req.Params.Meta[requestIDKey])
		resp := b.run(ctx, Request{ID: id, Method: name, Params: args}, h, emit(ctx, req))
		payload := resp.Result
		if !resp.OK {
			payload = resp.Error
		}
		text, err := json.Marshal(payload)
		if err != nil {
			return nil, fmt.Errorf("encode %s result: %w", name, err)
		}
		return &mcp.CallToolResult{IsError: !resp.OK, Content: []mcp.Content{&mcp.TextContent{Text: string(text)}}}, nil
	}
}
