package sim

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/troupehq/troupe/transports/acpupdate"
	"sync"
	"time"

	"github.com/gorilla/websocket"
	"github.com/troupehq/troupe/transports/jsonrpc"
)

// callWait bounds one request's answer (not a prompt's: prompts are
// answered when their run ends, and are followed through the store).
const callWait = 60 * time.Second

// update is one session/update a client received.
type update struct {
	seq  int64 // from the ev-<seq> messageId; 0 when it has none
	kind string
	text string // agent_message_chunk text
}

// promptRec is one prompt the scenario sent and what became of it.
type promptRec struct {
	key, text string
	client    int
	sent      time.Time
	answered  time.Time
	stop      string // the stopReason, or "error: ..."
	lost      bool   // its connection closed before the answer
	messageID string // from prompt_queue/added, when it was queued
}

type call struct {
	method string
	prompt *promptRec
	done   chan jsonrpc.Message // nil for prompts: nobody waits on them
}

// client is one ACP WebSocket client of one session; it records every
// update it is sent, answers permission requests as its session's spec
// says, and reattaches after_message the last update it saw.
type client struct {
	s   *session
	idx int

	cmu sync.Mutex // one connect at a time
	wmu sync.Mutex // one writer at a time, as gorilla requires
	mu  sync.Mutex
	ws  *websocket.Conn
	// gen counts connections: a reader of an older one records nothing.
	gen        int
	next       int
	calls      map[int]*call
	updates    []update
	attaches   int
	readerDone chan struct{}
}

// connected reports whether the client has a live connection.
func (c *client) connected() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ws != nil
}

// connect dials the daemon, initializes, and creates the session (the
// first client, once) or attaches: full the first time, after_message the
// last update seen after that.
func (c *client) connect(d *daemon) error {
	c.cmu.Lock()
	defer c.cmu.Unlock()
	if c.connected() {
		return nil
	}
	if err := c.handshake(d); err != nil {
		c.drop()
		return err
	}
	return nil
}

func (c *client) handshake(d *daemon) error {
	dl := websocket.Dialer{Subprotocols: []string{"acp.v1", "hydra-acp-token." + d.token}, HandshakeTimeout: callWait}
	ws, _, err := dl.Dial(d.wsURL(), nil)
	if err != nil {
		return fmt.Errorf("dial: %w", err)
	}
	c.mu.Lock()
	c.ws, c.gen, c.calls = ws, c.gen+1, map[int]*call{}
	gen := c.gen
	c.readerDone = make(chan struct{})
	done := c.readerDone
	c.mu.Unlock()
	go c.read(ws, gen, done)
	if _, err := c.call("initialize", map[string]any{"protocolVersion": 1, "clientInfo": map[string]any{"name": c.name()}}); err != nil {
		return err
	}
	if c.s.id == "" {
		res, err := c.call("session/new", map[string]any{"cwd": c.s.cwd, "mcpServers": []any{}})
		if err != nil {
			return err
		}
		var r struct{ SessionID string }
		if err := json.Unmarshal(res, &r); err != nil || r.SessionID == "" {
			return fmt.Errorf("session/new answered %s", res)
		}
		c.s.id = r.SessionID
		return nil
	}
	params := map[string]any{"sessionId": c.s.id, "historyPolicy": "full"}
	if anchor := c.lastSeq(); anchor > 0 {
		params["historyPolicy"], params["afterMessageId"] = "after_message", fmt.Sprintf("ev-%d", anchor)
	}
	if _, err := c.call("session/attach", params); err != nil {
		return err
	}
	c.mu.Lock()
	c.attaches++
	c.mu.Unlock()
	return nil
}

func (c *client) name() string { return fmt.Sprintf("%s/client-%d", c.s.name, c.idx+1) }

// drop closes the socket at once, as a network failure would.
func (c *client) drop() {
	c.mu.Lock()
	ws, done := c.ws, c.readerDone
	c.ws = nil
	c.mu.Unlock()
	if ws == nil {
		return
	}
	_ = ws.Close()
	<-done
}

// detach says session/detach, then closes.
func (c *client) detach() error {
	if !c.connected() {
		return nil
	}
	_, err := c.call("session/detach", map[string]any{"sessionId": c.s.id})
	c.drop()
	return err
}

// lastSeq is the seq of the last update this client saw with one.
func (c *client) lastSeq() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := len(c.updates) - 1; i >= 0; i-- {
		if c.updates[i].seq > 0 {
			return c.updates[i].seq
		}
	}
	return 0
}

// send writes a request and registers it; it returns the call's id.
func (c *client) send(method string, params any, cl *call) (int, error) {
	c.mu.Lock()
	ws := c.ws
	if ws == nil {
		c.mu.Unlock()
		return 0, errors.New("not connected")
	}
	c.next++
	id := c.next
	c.calls[id] = cl
	c.mu.Unlock()
	c.wmu.Lock()
	err := ws.WriteJSON(jsonrpc.NewRequest(jsonrpc.IntID(int64(id)), method, params))
	c.wmu.Unlock()
	if err != nil {
		return 0, fmt.Errorf("%s: write: %w", method, err)
	}
	return id, nil
}

// call sends a request and waits for its answer.
func (c *client) call(method string, params any) (json.RawMessage, error) {
	cl := &call{method: method, done: make(chan jsonrpc.Message, 1)}
	if _, err := c.send(method, params, cl); err != nil {
		return nil, err
	}
	select {
	case f, ok := <-cl.done:
		if !ok {
			return nil, fmt.Errorf("%s: connection closed", method)
		}
		if f.Error != nil {
			return nil, fmt.Errorf("%s: error %d %s", method, f.Error.Code, f.Error.Message)
		}
		return f.Result, nil
	case <-time.After(callWait):
		return nil, fmt.Errorf("%s: no answer in %s", method, callWait)
	}
}

// prompt sends p without waiting: the answer comes when its run ends.
func (c *client) prompt(p *promptRec, position string) error {
	params := map[string]any{"sessionId": c.s.id, "prompt": []any{map[string]any{"type": "text", "text": p.text}}}
	if position != "" {
		params["_meta"] = map[string]any{"hydra-acp": map[string]any{"queuePosition": position}}
	}
	c.s.mu.Lock()
	p.sent = time.Now()
	c.s.mu.Unlock()
	_, err := c.send("session/prompt", params, &call{method: "session/prompt", prompt: p})
	return err
}

func (c *client) read(ws *websocket.Conn, gen int, done chan struct{}) {
	defer close(done)
	for {
		_, msg, err := ws.ReadMessage()
		if err != nil {
			c.closed(gen)
			return
		}
		c.take(ws, msg)
	}
}

// closed fails the calls still waiting on connection gen; a prompt among
// them is lost to this client (the store says how it ended).
func (c *client) closed(gen int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen {
		return
	}
	for id, cl := range c.calls {
		if cl.prompt != nil {
			c.s.mu.Lock()
			cl.prompt.lost = true
			c.s.mu.Unlock()
		}
		if cl.done != nil {
			close(cl.done)
		}
		delete(c.calls, id)
	}
	c.ws = nil
}

func (c *client) take(ws *websocket.Conn, msg []byte) {
	var f jsonrpc.Message
	if err := json.Unmarshal(msg, &f); err != nil {
		return
	}
	switch {
	case f.Method == "session/update":
		c.record(f.Params)
	case f.Method == "hydra-acp/prompt_queue/added":
		c.s.queuedAdded(f.Params)
	case f.Method != "" && f.ID != nil:
		c.answerRequest(ws, f)
	case f.Method == "" && f.ID != nil:
		var id int
		if json.Unmarshal(f.ID, &id) != nil {
			return // not an id this client makes
		}
		c.mu.Lock()
		cl := c.calls[id]
		delete(c.calls, id)
		c.mu.Unlock()
		if cl == nil {
			return
		}
		if cl.prompt != nil {
			c.s.answered(cl.prompt, f)
		}
		if cl.done != nil {
			cl.done <- f
		}
	}
}

func (c *client) record(params json.RawMessage) {
	var u struct {
		Update struct {
			SessionUpdate string `json:"sessionUpdate"`
			Content       struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"update"`
		Meta struct {
			Hydra struct {
				MessageID string `json:"messageId"`
			} `json:"hydra-acp"`
		} `json:"_meta"`
	}
	if json.Unmarshal(params, &u) != nil {
		return
	}
	up := update{kind: u.Update.SessionUpdate}
	if up.kind == "agent_message_chunk" {
		up.text = u.Update.Content.Text
	}
	if pos, ok := acpupdate.ParseID(u.Meta.Hydra.MessageID); ok {
		up.seq = pos.Seq
	}
	c.mu.Lock()
	c.updates = append(c.updates, up)
	c.mu.Unlock()
}

// answerRequest answers the daemon's requests: a permission as the spec
// says (allow or deny), anything else MethodNotFound.
func (c *client) answerRequest(ws *websocket.Conn, f jsonrpc.Message) {
	var ans any
	if f.Method == "session/request_permission" {
		var p struct {
			Options []struct {
				OptionID string `json:"optionId"`
				Kind     string `json:"kind"`
			} `json:"options"`
		}
		_ = json.Unmarshal(f.Params, &p)
		want := "allow_once"
		if c.s.spec.Approve == "deny" {
			want = "reject_once"
		}
		outcome := map[string]any{"outcome": "cancelled"}
		for _, o := range p.Options {
			if o.Kind == want {
				outcome = map[string]any{"outcome": "selected", "optionId": o.OptionID}
				break
			}
		}
		ans = jsonrpc.NewResult(f.ID, map[string]any{"outcome": outcome})
		c.s.approvals.Add(1)
	} else {
		ans = jsonrpc.NewErrorAnswer(f.ID, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "method not found: "+f.Method))
	}
	c.wmu.Lock()
	_ = ws.WriteJSON(ans)
	c.wmu.Unlock()
}

// firstMissing counts the updates with a seq up to the first one has
// denies, and returns that one (missing false when there is none).
func (c *client) firstMissing(has func(int64) bool) (checked int, u update, missing bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, u := range c.updates {
		if u.seq == 0 {
			continue
		}
		checked++
		if !has(u.seq) {
			return checked, u, true
		}
	}
	return checked, update{}, false
}

// seen returns a copy of the updates received.
func (c *client) seen() []update {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]update(nil), c.updates...)
}
