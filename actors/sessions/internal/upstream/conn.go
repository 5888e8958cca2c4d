package upstream

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"

	acp "github.com/coder/acp-go-sdk"
)

// conn is troupe's client end of one agent program's ACP connection:
// newline-delimited JSON-RPC 2.0 over its stdin and stdout, the messages
// typed with acp-go-sdk's types.
//
// It is not the SDK's Connection: that one hands notifications to a
// bounded queue (1,024) and closes the connection when the queue is
// full, which an agent streaming faster than its handler (20,000 chunks
// at once, a long session/load replay) reaches. Here the reader goroutine
// hands the session/updates to the agent actor's mailbox in order, in
// runs of what it read back to back (one commit each), the answer to a
// request only after the updates the agent sent before it, and never
// drops the connection for being fast.
//
// Its goroutines: the reader, which ends when the program's stdout closes
// (the program ends with its process actor); one per request the agent
// makes, which ends when the handler answers (a permission request waits
// at most for the agent actor's context). Calls are made from the agent
// actor's goroutines, never its Receive: a write may wait on a full pipe.
type conn struct {
	w   io.Writer
	wmu sync.Mutex
	log *slog.Logger
	cl  *client
	// batch are updates read and not yet handed on (the reader's own).
	batch  []acp.SessionNotification
	chunks chunkReader

	next    atomic.Int64
	mu      sync.Mutex
	pending map[int64]chan wireMessage
	done    chan struct{}
}

// wireMessage is one JSON-RPC message as read.
type wireMessage struct {
	JSONRPC string            `json:"jsonrpc"`
	ID      json.RawMessage   `json:"id,omitempty"`
	Method  string            `json:"method,omitempty"`
	Params  json.RawMessage   `json:"params,omitempty"`
	Result  json.RawMessage   `json:"result,omitempty"`
	Error   *acp.RequestError `json:"error,omitempty"`
}

// maxLine bounds one message from the agent.
const maxLine = 64 << 20

func newConn(cl *client, w io.Writer, r io.Reader, log *slog.Logger) *conn {
	c := &conn{w: w, log: log, cl: cl, pending: map[int64]chan wireMessage{}, done: make(chan struct{})}
	go c.read(r)
	return c
}

// Done closes when the agent's stdout has closed.
func (c *conn) Done() <-chan struct{} { return c.done }

func (c *conn) read(r io.Reader) {
	defer c.closeAll()
	br := bufio.NewReaderSize(r, 1<<20)
	defer c.flush()
	for {
		if br.Buffered() == 0 {
			// Nothing more is at hand: what was read goes on now.
			c.flush()
		}
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long := append([]byte{}, line...)
			for errors.Is(err, bufio.ErrBufferFull) && len(long) <= maxLine {
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if len(line) > 1 {
			c.dispatch(line)
		}
		if err != nil {
			return
		}
	}
}

func (c *conn) dispatch(line []byte) {
	if n, ok := c.chunks.read(line); ok {
		c.add(n)
		return
	}
	var m wireMessage
	if err := json.Unmarshal(line, &m); err != nil {
		c.log.Warn("the agent wrote what is not JSON-RPC", "error", err)
		return
	}
	switch {
	case m.Method == "" && m.ID != nil:
		c.flush() // an answer comes after the updates sent before it
		id, err := strconv.ParseInt(string(m.ID), 10, 64)
		if err != nil {
			return
		}
		c.mu.Lock()
		ch := c.pending[id]
		delete(c.pending, id)
		c.mu.Unlock()
		if ch != nil {
			ch <- m
		}
	case m.Method == "session/update" && m.ID == nil:
		var n acp.SessionNotification
		if err := json.Unmarshal(m.Params, &n); err != nil {
			c.log.Warn("a session/update troupe cannot read", "error", err)
			return
		}
		c.add(n)
	case m.ID != nil:
		c.flush() // the updates before a request are the actor's first
		go c.serve(m)
	}
}

// add queues an update for the next flush.
func (c *conn) add(n acp.SessionNotification) {
	c.batch = append(c.batch, n)
	if len(c.batch) >= maxBatch {
		c.flush()
	}
}

// maxBatch bounds the updates handed to the actor at once.
const maxBatch = 512

// flush hands the updates read so far to the actor, in order.
func (c *conn) flush() {
	if len(c.batch) == 0 {
		return
	}
	c.cl.updates(c.batch)
	c.batch = nil
}

// serve answers one request of the agent's.
func (c *conn) serve(m wireMessage) {
	res, err := c.cl.handle(m.Method, m.Params)
	out := map[string]any{"jsonrpc": "2.0", "id": m.ID}
	var re *acp.RequestError
	switch {
	case errors.As(err, &re):
		out["error"] = re
	case err != nil:
		out["error"] = acp.NewInternalError(map[string]string{"error": err.Error()})
	default:
		out["result"] = res
	}
	if err := c.write(out); err != nil {
		c.log.Debug("an answer to the agent was not written", "method", m.Method, "error", err)
	}
}

func (c *conn) write(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err = c.w.Write(b)
	return err
}

// errGone fails the calls the agent can no longer answer.
var errGone = errors.New("the agent's connection closed")

// call sends a request and waits for its answer, decoded into result.
func (c *conn) call(ctx context.Context, method string, params, result any) error {
	id := c.next.Add(1)
	ch := make(chan wireMessage, 1)
	c.mu.Lock()
	c.pending[id] = ch
	c.mu.Unlock()
	select {
	case <-c.done:
		return errGone
	default:
	}
	if err := c.write(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}); err != nil {
		c.forget(id)
		return fmt.Errorf("%s: %w", method, err)
	}
	select {
	case m := <-ch:
		if m.Error != nil {
			return m.Error
		}
		if result == nil || len(m.Result) == 0 {
			return nil
		}
		return json.Unmarshal(m.Result, result)
	case <-c.done:
		return errGone
	case <-ctx.Done():
		c.forget(id)
		return ctx.Err()
	}
}

// notify sends a notification.
func (c *conn) notify(method string, params any) error {
	return c.write(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

func (c *conn) forget(id int64) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

func (c *conn) closeAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	close(c.done)
	clear(c.pending)
}
