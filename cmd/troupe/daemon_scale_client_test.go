package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/gorilla/websocket"
	"github.com/troupehq/troupe/transports/jsonrpc"
)

// scaleWait bounds one answer in BenchmarkDaemonScale: thousands of
// sessions share the machine, so a prompt may wait long for its turn.
const scaleWait = 8 * time.Minute

// scaleConn is one ACP WebSocket carrying many sessions: callers wait on
// their own request's answer while one reader dispatches every frame.
type scaleConn struct {
	ws *websocket.Conn

	wmu sync.Mutex // one writer at a time, as gorilla requires

	mu      sync.Mutex
	next    int
	waiting map[int]chan jsonrpc.Message
	tools   map[string]bool // sessions whose read completed
	readErr error

	// onFrame, when set, sees every frame first, as it is read (the
	// latency probe's clock).
	onFrame func(msg []byte)

	readerDone chan struct{}
}

func dialScale(url, token string, onFrame func(msg []byte)) (*scaleConn, error) {
	dl := websocket.Dialer{Subprotocols: []string{"acp.v1", "hydra-acp-token." + token}}
	ws, _, err := dl.Dial(url, nil)
	if err != nil {
		return nil, fmt.Errorf("dial: %w", err)
	}
	c := &scaleConn{ws: ws, waiting: map[int]chan jsonrpc.Message{}, tools: map[string]bool{}, onFrame: onFrame, readerDone: make(chan struct{})}
	go c.read()
	if _, err := c.call("initialize", map[string]any{"protocolVersion": 1}); err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}

// close ends the connection and waits for its reader.
func (c *scaleConn) close() {
	_ = c.ws.Close()
	<-c.readerDone
}

func (c *scaleConn) toolsDone() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.tools)
}

// read dispatches answers to their callers and notes completed tool calls;
// it decodes an update only when it is one of those, the rest of the
// stream is skipped unparsed.
func (c *scaleConn) read() {
	defer close(c.readerDone)
	for {
		_, msg, err := c.ws.ReadMessage()
		if err != nil {
			c.fail(fmt.Errorf("read: %w", err))
			return
		}
		if c.onFrame != nil {
			c.onFrame(msg)
		}
		if err := c.dispatch(msg); err != nil {
			c.fail(err)
			return
		}
	}
}

func (c *scaleConn) dispatch(msg []byte) error {
	var f jsonrpc.Message
	isUpdate := bytes.Contains(msg, []byte(`"method":"session/update"`))
	if isUpdate && !bytes.Contains(msg, []byte(`"sessionUpdate":"tool_call_update"`)) {
		return nil
	}
	if err := json.Unmarshal(msg, &f); err != nil {
		return fmt.Errorf("decode %s: %w", msg, err)
	}
	switch {
	case f.Method == "session/update":
		var u struct {
			SessionID string `json:"sessionId"`
			Update    struct {
				Status string `json:"status"`
			} `json:"update"`
		}
		if err := json.Unmarshal(f.Params, &u); err != nil {
			return fmt.Errorf("decode %s: %w", msg, err)
		}
		if u.Update.Status == "completed" {
			c.mu.Lock()
			c.tools[u.SessionID] = true
			c.mu.Unlock()
		}
		return nil
	case f.Method != "" && f.ID != nil:
		// A request from the daemon (a permission) would stall the run.
		return fmt.Errorf("unexpected request from the daemon: %s", msg)
	case f.Method != "":
		return nil // the daemon's other notifications (queue, usage)
	case f.ID == nil:
		return fmt.Errorf("answer without id: %s", msg)
	}
	var id int
	if err := json.Unmarshal(f.ID, &id); err != nil {
		return fmt.Errorf("answer to no request of ours: %s", msg)
	}
	c.mu.Lock()
	ch := c.waiting[id]
	delete(c.waiting, id)
	c.mu.Unlock()
	if ch == nil {
		return fmt.Errorf("answer to no request: %s", msg)
	}
	ch <- f
	return nil
}

// fail hands err to every caller still waiting, and to later ones.
func (c *scaleConn) fail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.readErr == nil {
		c.readErr = err
	}
	for id, ch := range c.waiting {
		close(ch)
		delete(c.waiting, id)
	}
}

func (c *scaleConn) call(method string, params any) (json.RawMessage, error) {
	ch := make(chan jsonrpc.Message, 1)
	c.mu.Lock()
	if c.readErr != nil {
		c.mu.Unlock()
		return nil, c.readErr
	}
	c.next++
	id := c.next
	c.waiting[id] = ch
	c.mu.Unlock()
	c.wmu.Lock()
	err := c.ws.WriteJSON(jsonrpc.NewRequest(jsonrpc.IntID(int64(id)), method, params))
	c.wmu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("%s: write: %w", method, err)
	}
	select {
	case a, ok := <-ch:
		if !ok {
			c.mu.Lock()
			defer c.mu.Unlock()
			return nil, fmt.Errorf("%s: %w", method, c.readErr)
		}
		if a.Error != nil {
			return nil, fmt.Errorf("%s: error %d %s", method, a.Error.Code, a.Error.Message)
		}
		return a.Result, nil
	case <-time.After(scaleWait):
		return nil, fmt.Errorf("%s: no answer in %s", method, scaleWait)
	}
}

// conversation creates a session in cwd, holding a slot of creating
// while it does, and runs its prompts, each to end_turn.
func (c *scaleConn) conversation(cwd string, creating chan struct{}) error {
	creating <- struct{}{}
	res, err := c.call("session/new", map[string]any{"cwd": cwd, "mcpServers": []any{}})
	<-creating
	if err != nil {
		return err
	}
	var s struct{ SessionID string }
	if err := json.Unmarshal(res, &s); err != nil || s.SessionID == "" {
		return fmt.Errorf("session/new answered %s", res)
	}
	for i := range scalePrompts {
		res, err := c.call("session/prompt", map[string]any{"sessionId": s.SessionID,
			"prompt": []any{map[string]any{"type": "text", "text": fmt.Sprintf("turn %d", i+1)}}})
		if err != nil {
			return fmt.Errorf("prompt %d: %w", i+1, err)
		}
		var r struct{ StopReason string }
		if err := json.Unmarshal(res, &r); err != nil {
			return fmt.Errorf("prompt %d answered %s: %w", i+1, res, err)
		}
		if r.StopReason != "end_turn" {
			return fmt.Errorf("prompt %d stopped %q, want end_turn: %s", i+1, r.StopReason, res)
		}
	}
	return nil
}
