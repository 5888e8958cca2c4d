package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/troupehq/troupe/testkit"
)

// acpWait bounds one wait on the daemon's WebSocket in these tests.
const acpWait = 30 * time.Second

// wsFrame is one JSON-RPC message from /acp, decoded enough to match on.
type wsFrame struct {
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

// wsUpdate is a session/update's params.
type wsUpdate struct {
	SessionID string `json:"sessionId"`
	Update    struct {
		SessionUpdate string `json:"sessionUpdate"`
		Content       struct {
			Text string `json:"text"`
		} `json:"content"`
		MessageID  string `json:"messageId"`
		ToolCallID string `json:"toolCallId"`
		Status     string `json:"status"`
		StopReason string `json:"stopReason"`
		ResolvedBy string `json:"resolvedBy"`
	} `json:"update"`
	Meta struct {
		Hydra struct {
			MessageID string `json:"messageId"`
		} `json:"hydra-acp"`
	} `json:"_meta"`
}

func (f wsFrame) isUpdate(kind string) bool {
	return f.Method == "session/update" && strings.Contains(string(f.Params), `"sessionUpdate":"`+kind+`"`)
}

func (f wsFrame) answers(id int) bool { return f.Method == "" && string(f.ID) == fmt.Sprint(id) }

func (f wsFrame) update(t testing.TB) wsUpdate {
	t.Helper()
	var u wsUpdate
	if err := json.Unmarshal(f.Params, &u); err != nil {
		t.Fatalf("session/update params %s: %v", f.Params, err)
	}
	return u
}

func (f wsFrame) decode(t testing.TB, v any) {
	t.Helper()
	if f.Error != nil {
		t.Fatalf("error answer: %d %s", f.Error.Code, f.Error.Message)
	}
	testkit.NoError(t, json.Unmarshal(f.Result, v))
}

// acpClient is a WebSocket ACP client of the daemon, written from the
// protocol's ACP section.
type acpClient struct {
	t    testing.TB
	ws   *websocket.Conn
	next int
	// subprotocol is what the daemon echoed.
	subprotocol string
}

// wsURL is the daemon's /acp address with query (may be empty).
func (d *daemonProc) wsURL(query string) string {
	u := "ws" + strings.TrimPrefix(d.url, "http") + "/acp"
	if query != "" {
		u += "?" + query
	}
	return u
}

// dialACP connects with the token as a subprotocol entry and initializes.
func (d *daemonProc) dialACP(t testing.TB, name string) *acpClient {
	t.Helper()
	dl := websocket.Dialer{Subprotocols: []string{"acp.v1", "hydra-acp-token." + d.token}}
	ws, res, err := dl.Dial(d.wsURL(""), nil)
	testkit.NoError(t, err)
	t.Cleanup(func() { _ = ws.Close() })
	c := &acpClient{t: t, ws: ws, subprotocol: res.Header.Get("Sec-WebSocket-Protocol")}
	c.waitAnswer(c.call("initialize", map[string]any{"protocolVersion": 1, "clientInfo": map[string]any{"name": name}}))
	return c
}

func (c *acpClient) call(method string, params any) int {
	c.t.Helper()
	c.next++
	c.send(map[string]any{"jsonrpc": "2.0", "id": c.next, "method": method, "params": params})
	return c.next
}

func (c *acpClient) send(v any) {
	c.t.Helper()
	testkit.NoError(c.t, c.ws.WriteJSON(v))
}

func (c *acpClient) read(timeout time.Duration) wsFrame {
	c.t.Helper()
	_ = c.ws.SetReadDeadline(time.Now().Add(timeout))
	_, b, err := c.ws.ReadMessage()
	if err != nil {
		c.t.Fatalf("read: %v", err)
	}
	var f wsFrame
	testkit.NoError(c.t, json.Unmarshal(b, &f))
	f.raw = string(b)
	return f
}

// until reads frames up to the first cond accepts, returning them all.
func (c *acpClient) until(cond func(wsFrame) bool) []wsFrame {
	c.t.Helper()
	deadline := time.Now().Add(acpWait)
	var out []wsFrame
	for {
		left := time.Until(deadline)
		if left <= 0 {
			c.t.Fatalf("condition not met in %s; read %d frames", acpWait, len(out))
		}
		f := c.read(left)
		out = append(out, f)
		if cond(f) {
			return out
		}
	}
}

func (c *acpClient) waitAnswer(id int) wsFrame {
	c.t.Helper()
	fs := c.until(func(f wsFrame) bool { return f.answers(id) })
	return fs[len(fs)-1]
}

// newSession creates a session in cwd; it returns the session's id and
// this client's id.
func (c *acpClient) newSession(cwd string) (string, string) {
	c.t.Helper()
	var res struct {
		SessionID string `json:"sessionId"`
		Meta      struct {
			Hydra struct {
				ClientID string `json:"clientId"`
			} `json:"hydra-acp"`
		} `json:"_meta"`
	}
	c.waitAnswer(c.call("session/new", map[string]any{"cwd": cwd, "mcpServers": []any{}})).decode(c.t, &res)
	return res.SessionID, res.Meta.Hydra.ClientID
}

type acpAttached struct {
	ClientID      string `json:"clientId"`
	HistoryPolicy string `json:"historyPolicy"`
	Replayed      int    `json:"replayed"`
}

// attach returns the frames replayed before the answer, and the answer.
func (c *acpClient) attach(params map[string]any) ([]wsFrame, acpAttached) {
	c.t.Helper()
	id := c.call("session/attach", params)
	fs := c.until(func(f wsFrame) bool { return f.answers(id) })
	var res acpAttached
	fs[len(fs)-1].decode(c.t, &res)
	return fs[:len(fs)-1], res
}

func (c *acpClient) prompt(sid, text string) int {
	return c.call("session/prompt", map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": text}}})
}

// chunks is the agent text the frames carry.
func chunks(t testing.TB, fs []wsFrame) string {
	var b strings.Builder
	for _, f := range fs {
		if f.isUpdate("agent_message_chunk") {
			b.WriteString(f.update(t).Update.Content.Text)
		}
	}
	return b.String()
}

// count is how many of the frames are updates of kind.
func count(fs []wsFrame, kind string) int {
	n := 0
	for _, f := range fs {
		if f.isUpdate(kind) {
			n++
		}
	}
	return n
}

// messageSeq is an update's ev-<seq> anchor as a number.
func messageSeq(t testing.TB, f wsFrame) int64 {
	var n int64
	if _, err := fmt.Sscanf(f.update(t).Meta.Hydra.MessageID, "ev-%d", &n); err != nil {
		t.Fatalf("messageId of %s: %v", f.raw, err)
	}
	return n
}

// requireIncreasing checks the updates' anchors strictly increase: nothing
// twice, nothing out of order.
func requireIncreasing(t testing.TB, fs []wsFrame) {
	t.Helper()
	last := int64(-1)
	for _, f := range fs {
		if f.Method != "session/update" || f.update(t).Meta.Hydra.MessageID == "" {
			continue
		}
		n := messageSeq(t, f)
		if n <= last {
			t.Fatalf("update ev-%d after ev-%d: %s", n, last, f.raw)
		}
		last = n
	}
}

// dialStatus tries an upgrade and returns the HTTP status the daemon gave.
func dialStatus(t testing.TB, url string, header http.Header, subprotocols ...string) int {
	t.Helper()
	dl := websocket.Dialer{Subprotocols: subprotocols}
	ws, res, err := dl.Dial(url, header)
	if err == nil {
		ws.Close()
		return http.StatusSwitchingProtocols
	}
	if res == nil {
		t.Fatalf("dial %s: %v", url, err)
	}
	return res.StatusCode
}
