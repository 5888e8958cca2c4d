package acpclient

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/troupehq/troupe/transports/jsonrpc"
)

// Subprotocol is ACP's WebSocket subprotocol (transports/acp's, spelled
// again so this package imports only troupe's JSON-RPC wire types).
const Subprotocol = "acp.v1"

// TokenEntry is the subprotocol entry carrying a bearer token, for
// clients that cannot set an Authorization header (browsers).
func TokenEntry(token string) string { return "hydra-acp-token." + token }

// WithToken is the usual subprotocol list: ACP's, then the token entry.
func WithToken(token string) []string { return []string{Subprotocol, TokenEntry(token)} }

// URL is the WebSocket address of an http(s) base URL plus path and
// query (either may be empty).
func URL(base, path, query string) string {
	u := "ws" + strings.TrimPrefix(base, "http") + path
	if query != "" {
		u += "?" + query
	}
	return u
}

// Options say how to dial.
type Options struct {
	URL          string      // ws:// or wss://
	Subprotocols []string    // offered in order, e.g. WithToken(token)
	Header       http.Header // sent with the upgrade (may be nil)
	// Name is the clientInfo name initialize sends.
	Name string
	// Wait bounds initialize, and every wait that takes no timeout of its
	// own (Until, WaitAnswer, NewSession, Attach).
	Wait time.Duration
	// NoInitialize dials without sending initialize, as Hydra's shim
	// does when it reconnects after a daemon restart.
	NoInitialize bool
}

// Client is one ACP connection of a test. Its calls run in the test's
// goroutine; a concurrent reader must not share it.
type Client struct {
	// WS is the connection, for tests that read or write raw frames.
	WS *websocket.Conn
	// Subprotocol is what the server echoed.
	Subprotocol string
	// Wait is Options.Wait.
	Wait time.Duration

	t    testing.TB
	next int
}

// Dial connects, closes the connection when the test ends, and
// initializes (unless o.NoInitialize).
func Dial(t testing.TB, o Options) *Client {
	t.Helper()
	dl := websocket.Dialer{Subprotocols: o.Subprotocols}
	ws, res, err := dl.Dial(o.URL, o.Header)
	if err != nil {
		t.Fatalf("dial %s: %v", o.URL, err)
	}
	t.Cleanup(func() { _ = ws.Close() })
	c := &Client{t: t, WS: ws, Subprotocol: res.Header.Get("Sec-WebSocket-Protocol"), Wait: o.Wait}
	if o.NoInitialize {
		return c
	}
	c.WaitAnswer(c.Call("initialize", map[string]any{"protocolVersion": 1, "clientInfo": map[string]any{"name": o.Name}}))
	return c
}

// DialStatus tries an upgrade and returns the HTTP status the server gave
// (101 when it upgraded).
func DialStatus(t testing.TB, url string, header http.Header, subprotocols ...string) int {
	t.Helper()
	dl := websocket.Dialer{Subprotocols: subprotocols}
	ws, res, err := dl.Dial(url, header)
	if err == nil {
		_ = ws.Close()
		return http.StatusSwitchingProtocols
	}
	if res == nil {
		t.Fatalf("dial %s: %v", url, err)
	}
	return res.StatusCode
}

// Call sends a request and returns its id.
func (c *Client) Call(method string, params any) int {
	c.t.Helper()
	c.next++
	c.Send(jsonrpc.NewRequest(jsonrpc.IntID(int64(c.next)), method, params))
	return c.next
}

// Send writes v as one JSON message.
func (c *Client) Send(v any) {
	c.t.Helper()
	if err := c.WS.WriteJSON(v); err != nil {
		c.t.Fatalf("send: %v", err)
	}
}

// Read returns the next frame, failing the test when none comes in
// timeout.
func (c *Client) Read(timeout time.Duration) Frame {
	c.t.Helper()
	_ = c.WS.SetReadDeadline(time.Now().Add(timeout))
	_, b, err := c.WS.ReadMessage()
	if err != nil {
		c.t.Fatalf("read: %v", err)
	}
	return Parse(c.t, b)
}

// Until reads frames up to the first cond accepts, returning them all;
// within c.Wait.
func (c *Client) Until(cond func(Frame) bool) []Frame {
	c.t.Helper()
	return c.UntilWithin(c.Wait, cond)
}

// UntilWithin is Until within timeout.
func (c *Client) UntilWithin(timeout time.Duration, cond func(Frame) bool) []Frame {
	c.t.Helper()
	deadline := time.Now().Add(timeout)
	var out []Frame
	for {
		left := time.Until(deadline)
		if left <= 0 {
			c.t.Fatalf("condition not met in %s; read %d frames", timeout, len(out))
		}
		f := c.Read(left)
		out = append(out, f)
		if cond(f) {
			return out
		}
	}
}

// WaitAnswer reads up to the answer to request id and returns it; within
// c.Wait.
func (c *Client) WaitAnswer(id int) Frame {
	c.t.Helper()
	return c.WaitAnswerWithin(id, c.Wait)
}

// WaitAnswerWithin is WaitAnswer within timeout.
func (c *Client) WaitAnswerWithin(id int, timeout time.Duration) Frame {
	c.t.Helper()
	fs := c.UntilWithin(timeout, func(f Frame) bool { return f.Answers(id) })
	return fs[len(fs)-1]
}

// AnswerPermission answers the session/request_permission id with the
// option optionID selected.
func (c *Client) AnswerPermission(id any, optionID string) {
	c.t.Helper()
	raw, err := json.Marshal(id)
	if err != nil {
		c.t.Fatalf("permission id %v: %v", id, err)
	}
	c.Send(jsonrpc.NewResult(raw, map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": optionID}}))
}
