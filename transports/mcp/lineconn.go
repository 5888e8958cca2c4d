package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	wire "github.com/troupehq/troupe/transports/jsonrpc"
	"github.com/troupehq/troupe/transports/stdio"
)

// lineConn is newline-delimited JSON-RPC on a reader and a writer, for the
// SDK. Unlike the SDK's own stdio transport it answers a bad line with a
// JSON-RPC error and reads on (the SDK's ends the session), and at EOF it
// lets the calls under way answer before reporting the end.
type lineConn struct {
	in   chan jsonrpc.Message
	eof  chan struct{} // closed once the reader stopped
	stop chan struct{} // closed by Close
	once sync.Once

	wmu sync.Mutex
	w   io.Writer
	err error

	pmu     sync.Mutex
	pending map[string]bool
	idle    chan struct{} // closed when pending empties, while EOF waits

	bmu     sync.Mutex
	initID  string            // the initialize call's id key, until answered
	version string            // the negotiated protocol version
	batches map[string]*batch // by the id keys of their requests
}

// newLineConn starts reading r. The reading goroutine ends at r's end or
// error, which the command owning r brings about (stdin closes, or the
// process exits).
func newLineConn(r io.Reader, w io.Writer, maxLine int) *lineConn {
	c := &lineConn{in: make(chan jsonrpc.Message), eof: make(chan struct{}), stop: make(chan struct{}), w: w, pending: map[string]bool{}, batches: map[string]*batch{}}
	go c.read(stdio.NewReader(r, maxLine))
	return c
}

func (c *lineConn) read(rd *stdio.Reader) {
	defer close(c.eof)
	for {
		line, err := rd.Next()
		switch {
		case errors.Is(err, stdio.ErrLineTooLong):
			c.reply(nil, jsonrpc.CodeInvalidRequest, err.Error())
			continue
		case err != nil:
			return
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		msgs, ok := c.decode(line)
		if !ok {
			continue
		}
		for _, m := range msgs {
			c.track(m)
			select {
			case c.in <- m:
			case <-c.stop:
				return
			}
		}
	}
}

// track counts a call as pending until answered, and remembers the
// initialize call's id to read the version from its answer.
func (c *lineConn) track(m jsonrpc.Message) {
	req, ok := m.(*jsonrpc.Request)
	if !ok || !req.ID.IsValid() {
		return
	}
	c.pmu.Lock()
	c.pending[idKey(req.ID)] = true
	c.pmu.Unlock()
	if req.Method == "initialize" {
		c.bmu.Lock()
		c.initID = idKey(req.ID)
		c.bmu.Unlock()
	}
}

// decode reads one line as one JSON-RPC message (or a batch of them), or
// answers the error it gets instead: -32700 for what is not JSON, -32600
// for JSON that is not a message, with the line's id when it has one.
func (c *lineConn) decode(line []byte) ([]jsonrpc.Message, bool) {
	if !json.Valid(line) {
		c.reply(nil, jsonrpc.CodeParseError, "parse error: the line is not JSON")
		return nil, false
	}
	if bytes.HasPrefix(bytes.TrimSpace(line), []byte("[")) {
		return c.decodeBatch(line)
	}
	m, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		c.reply(lineID(line), jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: %v", err))
		return nil, false
	}
	return []jsonrpc.Message{m}, true
}

// lineID is a line's id when it is a string or a number, else nil.
func lineID(line []byte) json.RawMessage {
	var v struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(line, &v) != nil || len(v.ID) == 0 {
		return nil
	}
	if v.ID[0] == '"' || v.ID[0] == '-' || (v.ID[0] >= '0' && v.ID[0] <= '9') {
		return v.ID
	}
	return nil
}

// reply writes an error response; a nil id is written null. The error
// object is the shared wire type; the envelope stays a map, whose sorted
// keys are the bytes the golden transcripts pin for troupe's own answers
// (the SDK's answers write jsonrpc, id, error).
func (c *lineConn) reply(id json.RawMessage, code int64, msg string) {
	if id == nil {
		id = wire.Null
	}
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": wire.NewError(int(code), msg)})
	if err != nil {
		return
	}
	_ = c.line(b)
}

func (c *lineConn) line(b []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.err != nil {
		return c.err
	}
	_, c.err = c.w.Write(append(b, '\n'))
	return c.err
}

func idKey(id jsonrpc.ID) string { return fmt.Sprintf("%T:%v", id.Raw(), id.Raw()) }

func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case m := <-c.in:
		return m, nil
	case <-c.eof:
		// Every call read is answered before the session ends.
		select {
		case <-c.drained():
		case <-c.stop:
		case <-ctx.Done():
		}
		return nil, io.EOF
	case <-c.stop:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// drained is closed once no call is waiting for its answer.
func (c *lineConn) drained() <-chan struct{} {
	c.pmu.Lock()
	defer c.pmu.Unlock()
	ch := make(chan struct{})
	if len(c.pending) == 0 {
		close(ch)
		return ch
	}
	c.idle = ch
	return ch
}

func (c *lineConn) Write(_ context.Context, m jsonrpc.Message) error {
	b, err := jsonrpc.EncodeMessage(m)
	if err != nil {
		return fmt.Errorf("encode mcp message: %w", err)
	}
	resp, isResp := m.(*jsonrpc.Response)
	if isResp {
		c.negotiated(resp)
		if line, held := c.answered(resp.ID, b); held {
			b = line // nil until the batch's last answer
		}
	}
	if b != nil {
		err = c.line(b)
	}
	if isResp {
		c.pmu.Lock()
		delete(c.pending, idKey(resp.ID))
		if len(c.pending) == 0 && c.idle != nil {
			close(c.idle)
			c.idle = nil
		}
		c.pmu.Unlock()
	}
	return err
}

func (c *lineConn) Close() error {
	c.once.Do(func() { close(c.stop) })
	return nil
}

func (c *lineConn) SessionID() string { return "" }
