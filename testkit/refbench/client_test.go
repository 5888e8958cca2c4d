//go:build refbench

package refbench

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/troupehq/troupe/testkit"
)

// client is a bare ACP WebSocket client that counts chunks rather than
// decoding every frame, so the client costs the measure little and the
// same on both daemons.
type client struct{ ws *websocket.Conn }

var (
	chunkKind = []byte(`"agent_message_chunk"`)
	methodKey = []byte(`"method"`)
)

// dial opens /acp with the token as Hydra's clients send it (the
// `hydra-acp-token.<token>` subprotocol beside `acp.v1`) and initializes.
func dial(t *testing.T, d daemon) *client {
	t.Helper()
	dl := websocket.Dialer{Subprotocols: []string{"acp.v1", "hydra-acp-token." + d.token}, HandshakeTimeout: time.Minute}
	ws, _, err := dl.Dial(d.ws, nil)
	testkit.NoError(t, err)
	_ = ws.SetReadDeadline(time.Now().Add(5 * time.Minute))
	c := &client{ws: ws}
	c.call(t, 1, "initialize", map[string]any{"protocolVersion": 1})
	return c
}

func (c *client) send(t *testing.T, id int, method string, params any) {
	t.Helper()
	testkit.NoError(t, c.ws.WriteJSON(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
}

// answer is a frame's id and result when it is an answer (it has no
// method); ok is false for requests and notifications.
func answer(t *testing.T, msg []byte) (id int, result json.RawMessage, ok bool) {
	t.Helper()
	if bytes.Contains(msg, methodKey) {
		return 0, nil, false
	}
	var r struct {
		ID     *int            `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	testkit.NoError(t, json.Unmarshal(msg, &r))
	if r.ID == nil {
		return 0, nil, false
	}
	if r.Error != nil {
		t.Fatalf("request %d: error %d %s", *r.ID, r.Error.Code, r.Error.Message)
	}
	return *r.ID, r.Result, true
}

// call sends a request and reads up to its answer, which it returns.
func (c *client) call(t *testing.T, id int, method string, params any) json.RawMessage {
	t.Helper()
	c.send(t, id, method, params)
	for {
		_, msg, err := c.ws.ReadMessage()
		testkit.NoError(t, err)
		if got, res, ok := answer(t, msg); ok && got == id {
			return res
		}
	}
}

func (c *client) newSession(t *testing.T, cwd string) string {
	t.Helper()
	res := c.call(t, 2, "session/new", map[string]any{"cwd": cwd, "mcpServers": []any{},
		"_meta": map[string]any{"hydra-acp": map[string]any{"agentId": "scripted"}}})
	var s struct{ SessionID string }
	testkit.NoError(t, json.Unmarshal(res, &s))
	if s.SessionID == "" {
		t.Fatalf("session/new answered %s", res)
	}
	return s.SessionID
}

func (c *client) prompt(t *testing.T, id int, sid, text string) {
	t.Helper()
	c.send(t, id, "session/prompt", map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": text}}})
}

// untilAnswer reads frames up to the answer to id and counts the
// agent_message_chunks before it.
func (c *client) untilAnswer(t *testing.T, id int) int {
	t.Helper()
	n := 0
	for {
		_, msg, err := c.ws.ReadMessage()
		testkit.NoError(t, err)
		if bytes.Contains(msg, chunkKind) {
			n++
			continue
		}
		if got, _, ok := answer(t, msg); ok && got == id {
			return n
		}
	}
}

// untilKind reads frames up to one holding kind (a session/update kind)
// and counts the agent_message_chunks before it.
func (c *client) untilKind(t *testing.T, kind string) int {
	t.Helper()
	n := 0
	k := []byte(`"` + kind + `"`)
	for {
		_, msg, err := c.ws.ReadMessage()
		testkit.NoError(t, err)
		if bytes.Contains(msg, chunkKind) {
			n++
			continue
		}
		if bytes.Contains(msg, k) {
			return n
		}
	}
}

// replayedText is the text of the agent_message_chunks among frames.
func replayedText(t *testing.T, frames [][]byte) string {
	t.Helper()
	var sb bytes.Buffer
	for _, f := range frames {
		if !bytes.Contains(f, chunkKind) {
			continue
		}
		var n struct {
			Params struct {
				Update struct {
					SessionUpdate string `json:"sessionUpdate"`
					Content       struct {
						Text string `json:"text"`
					} `json:"content"`
				} `json:"update"`
			} `json:"params"`
		}
		testkit.NoError(t, json.Unmarshal(f, &n))
		if n.Params.Update.SessionUpdate == "agent_message_chunk" {
			sb.WriteString(n.Params.Update.Content.Text)
		}
	}
	return sb.String()
}
