package acp_test

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/gorilla/websocket"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/runtime/boot"
	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
	"github.com/troupehq/troupe/transports/acp"
)

// wsRig is a runtime whose runs play a script, served by WebSocketHandler
// on a loopback httptest server.
type wsRig struct {
	p   *llmserver.Provider
	rt  *boot.Runtime
	srv *httptest.Server
	cwd string
}

func newWSRig(t testing.TB, script llmserver.Script, mode string, tune func(*acp.WebSocketConfig)) *wsRig {
	t.Helper()
	return newWSRigLogged(t, script, mode, tune, nil, nil)
}

// newWSRigLogged also writes the runtime's debug log to logs.
func newWSRigLogged(t testing.TB, script llmserver.Script, mode string, tune func(*acp.WebSocketConfig), logs *testkit.Buffer, tuneBoot func(*boot.Options)) *wsRig {
	t.Helper()
	p, err := llmserver.NewProvider(script, llmserver.WithTest(t))
	testkit.NoError(t, err)
	eng := testkit.Engine(p, event.ToolStyleNative)
	eng.DefaultMode = mode
	opts := boot.Options{Engine: eng}
	if logs != nil {
		log, err := boot.NewLogger(boot.LogOptions{Level: "debug", Format: "json", Writer: logs})
		testkit.NoError(t, err)
		opts.Logger = log
	}
	if tuneBoot != nil {
		tuneBoot(&opts)
	}
	rt := testkit.Boot(t, opts)
	cfg := acp.WebSocketConfig{
		Config: acp.Config{Sessions: rt.Sessions, Version: "test"},
		Start: func(props *actor.Props, name string) error {
			_, err := rt.StartTransport(props, name)
			return err
		},
	}
	if tune != nil {
		tune(&cfg)
	}
	srv := httptest.NewServer(acp.WebSocketHandler(cfg))
	t.Cleanup(srv.Close)
	return &wsRig{p: p, rt: rt, srv: srv, cwd: t.TempDir()}
}

// frame is one message received, decoded enough to match on.
type frame struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	raw string
}

// update is a session/update's content.
type update struct {
	SessionID string `json:"sessionId"`
	Update    struct {
		SessionUpdate string `json:"sessionUpdate"`
		Content       struct {
			Text string `json:"text"`
		} `json:"content"`
		MessageID  string `json:"messageId"`
		ToolCallID string `json:"toolCallId"`
		StopReason string `json:"stopReason"`
		ResolvedBy string `json:"resolvedBy"`
	} `json:"update"`
	Meta struct {
		Hydra struct {
			MessageID string `json:"messageId"`
		} `json:"hydra-acp"`
	} `json:"_meta"`
}

func (f frame) update(t testing.TB) update {
	t.Helper()
	var u update
	if err := json.Unmarshal(f.Params, &u); err != nil {
		t.Fatalf("session/update params %s: %v", f.Params, err)
	}
	return u
}

func (f frame) isUpdate(kind string) bool {
	return f.Method == "session/update" && strings.Contains(string(f.Params), `"sessionUpdate":"`+kind+`"`)
}

// answers reports the response to request id.
func (f frame) answers(id int) bool { return f.Method == "" && string(f.ID) == fmt.Sprint(id) }

type wsClient struct {
	t    testing.TB
	ws   *websocket.Conn
	next int
	// Subprotocol is what the server echoed.
	Subprotocol string
}

func (r *wsRig) dial(t testing.TB, name string) *wsClient {
	t.Helper()
	url := "ws" + strings.TrimPrefix(r.srv.URL, "http")
	d := websocket.Dialer{Subprotocols: []string{acp.Subprotocol, "hydra-acp-token.secret"}}
	ws, resp, err := d.Dial(url, nil)
	testkit.NoError(t, err)
	t.Cleanup(func() { _ = ws.Close() })
	c := &wsClient{t: t, ws: ws, Subprotocol: resp.Header.Get("Sec-WebSocket-Protocol")}
	c.call("initialize", map[string]any{"protocolVersion": 1, "clientInfo": map[string]any{"name": name}})
	c.waitAnswer(c.next, 10*time.Second)
	return c
}

// call sends a request and returns its id.
func (c *wsClient) call(method string, params any) int {
	c.t.Helper()
	c.next++
	c.send(map[string]any{"jsonrpc": "2.0", "id": c.next, "method": method, "params": params})
	return c.next
}

func (c *wsClient) send(v any) {
	c.t.Helper()
	testkit.NoError(c.t, c.ws.WriteJSON(v))
}

func (c *wsClient) read(timeout time.Duration) frame {
	c.t.Helper()
	_ = c.ws.SetReadDeadline(time.Now().Add(timeout))
	_, b, err := c.ws.ReadMessage()
	if err != nil {
		c.t.Fatalf("read: %v", err)
	}
	var f frame
	testkit.NoError(c.t, json.Unmarshal(b, &f))
	f.raw = string(b)
	return f
}

// until reads frames up to the first cond accepts, returning them all.
func (c *wsClient) until(timeout time.Duration, cond func(frame) bool) []frame {
	c.t.Helper()
	deadline := time.Now().Add(timeout)
	var out []frame
	for {
		left := time.Until(deadline)
		if left <= 0 {
			c.t.Fatalf("condition not met in %s; read %d frames", timeout, len(out))
		}
		f := c.read(left)
		out = append(out, f)
		if cond(f) {
			return out
		}
	}
}

func (c *wsClient) waitAnswer(id int, timeout time.Duration) frame {
	c.t.Helper()
	fs := c.until(timeout, func(f frame) bool { return f.answers(id) })
	return fs[len(fs)-1]
}

// result decodes a successful answer.
func (f frame) decode(t testing.TB, v any) {
	t.Helper()
	if f.Error != nil {
		t.Fatalf("error answer: %d %s", f.Error.Code, f.Error.Message)
	}
	testkit.NoError(t, json.Unmarshal(f.Result, v))
}

// newSession creates a session and returns its id and this client's id.
func (c *wsClient) newSession(cwd string) (string, string) {
	c.t.Helper()
	var res struct {
		SessionID string `json:"sessionId"`
		Meta      struct {
			Hydra struct {
				ClientID string `json:"clientId"`
			} `json:"hydra-acp"`
		} `json:"_meta"`
	}
	c.waitAnswer(c.call("session/new", map[string]any{"cwd": cwd, "mcpServers": []any{}}), 10*time.Second).decode(c.t, &res)
	return res.SessionID, res.Meta.Hydra.ClientID
}

type attachResult struct {
	SessionID        string           `json:"sessionId"`
	ClientID         string           `json:"clientId"`
	HistoryPolicy    string           `json:"historyPolicy"`
	Replayed         int              `json:"replayed"`
	ConnectedClients []acp.ClientInfo `json:"connectedClients"`
}

// attach attaches and returns the frames replayed before the answer, and
// the answer.
func (c *wsClient) attach(params map[string]any) ([]frame, attachResult) {
	c.t.Helper()
	id := c.call("session/attach", params)
	fs := c.until(10*time.Second, func(f frame) bool { return f.answers(id) })
	var res attachResult
	fs[len(fs)-1].decode(c.t, &res)
	return fs[:len(fs)-1], res
}

func (c *wsClient) prompt(sid, text string) int {
	return c.call("session/prompt", map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": text}}})
}

func fmtSscan(anchor string, n *int64) (int, error) { return fmt.Sscanf(anchor, "ev-%d", n) }
