package daemonclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/gorilla/websocket"
	"github.com/troupehq/troupe/transports/jsonrpc"
)

// ACP is one ACP connection to the daemon's /acp: JSON-RPC 2.0, one
// message per text frame. Calls and reads happen in the caller's
// goroutine; the context given to DialACP closes the connection when it
// ends, which ends a blocked Read.
type ACP struct {
	ws   *websocket.Conn
	stop func() bool
	wmu  sync.Mutex // guards next and writes: a Send may come from another goroutine while a Call reads
	next int
}

// ACP's session-not-found code as troupe answers it.
const CodeSessionNotFound = -32001

// DialWS opens the daemon's /acp WebSocket with the bearer token and the
// acp.v1 subprotocol, and nothing more: for a client that speaks ACP over
// it itself (transports/terminal). A refused upgrade is an *Error with
// the HTTP status.
func (c *Client) DialWS(ctx context.Context) (*websocket.Conn, error) {
	u := "ws" + strings.TrimPrefix(c.URL, "http") + "/acp"
	h := http.Header{}
	if c.Token != "" {
		h.Set("Authorization", "Bearer "+c.Token)
	}
	dl := websocket.Dialer{Subprotocols: []string{"acp.v1"}}
	ws, res, err := dl.DialContext(ctx, u, h)
	if err == nil {
		return ws, nil
	}
	if res == nil {
		return nil, &NotRunningError{Home: c.Home, URL: c.URL, Err: err}
	}
	return nil, readError(http.MethodGet, "/acp", res)
}

// DialACP is DialWS, then initialize with clientName.
func (c *Client) DialACP(ctx context.Context, clientName string) (*ACP, error) {
	ws, err := c.DialWS(ctx)
	if err != nil {
		return nil, err
	}
	a := &ACP{ws: ws}
	a.stop = context.AfterFunc(ctx, func() { _ = ws.Close() })
	init := map[string]any{"protocolVersion": 1, "clientInfo": map[string]any{"name": clientName},
		"clientCapabilities": map[string]any{}}
	if _, err := a.Call(ctx, "initialize", init, nil); err != nil {
		a.Close()
		return nil, fmt.Errorf("initialize: %w", err)
	}
	return a, nil
}

// Close closes the connection.
func (a *ACP) Close() error {
	a.stop()
	return a.ws.Close()
}

// Send sends a request and returns its id, for callers that read the
// answer among other frames themselves.
func (a *ACP) Send(method string, params any) (int, error) {
	a.wmu.Lock()
	defer a.wmu.Unlock()
	a.next++
	return a.next, a.writeLocked(jsonrpc.NewRequest(jsonrpc.IntID(int64(a.next)), method, params))
}

// Answer replies to a request of the daemon (session/request_permission).
func (a *ACP) Answer(id json.RawMessage, result any) error {
	return a.write(jsonrpc.NewResult(id, result))
}

func (a *ACP) write(v any) error {
	a.wmu.Lock()
	defer a.wmu.Unlock()
	return a.writeLocked(v)
}

func (a *ACP) writeLocked(v any) error {
	if err := a.ws.WriteJSON(v); err != nil {
		return fmt.Errorf("send: %w", err)
	}
	return nil
}

// Read returns the next frame.
func (a *ACP) Read(ctx context.Context) (jsonrpc.Message, error) {
	_, b, err := a.ws.ReadMessage()
	if err != nil {
		if ctx.Err() != nil {
			return jsonrpc.Message{}, ctx.Err()
		}
		return jsonrpc.Message{}, &ClosedError{Err: err}
	}
	var f jsonrpc.Message
	if err := json.Unmarshal(b, &f); err != nil {
		return jsonrpc.Message{}, fmt.Errorf("decode frame: %w", err)
	}
	return f, nil
}

// Call sends a request and reads until its answer, handing every other
// frame to each (when not nil). A JSON-RPC error answer is a *jsonrpc.Error.
func (a *ACP) Call(ctx context.Context, method string, params any, each func(jsonrpc.Message) error) (json.RawMessage, error) {
	id, err := a.Send(method, params)
	if err != nil {
		return nil, err
	}
	return a.Await(ctx, id, each)
}

// Await reads until the answer to request id, handing every other frame
// to each (when not nil).
func (a *ACP) Await(ctx context.Context, id int, each func(jsonrpc.Message) error) (json.RawMessage, error) {
	for {
		f, err := a.Read(ctx)
		if err != nil {
			return nil, err
		}
		if f.Answers(id) {
			if f.Error != nil {
				return nil, f.Error
			}
			return f.Result, nil
		}
		if each != nil {
			if err := each(f); err != nil {
				return nil, err
			}
		}
	}
}

// ClosedError is the connection ending under a reader: the daemon
// stopped, or the network failed.
type ClosedError struct{ Err error }

func (e *ClosedError) Error() string {
	return "the daemon closed the connection (" + e.Err.Error() + ")"
}

func (e *ClosedError) Unwrap() error { return e.Err }

// IsSessionNotFound reports an ACP answer that the session is unknown.
func IsSessionNotFound(err error) bool {
	var e *jsonrpc.Error
	return errors.As(err, &e) && e.Code == CodeSessionNotFound
}
