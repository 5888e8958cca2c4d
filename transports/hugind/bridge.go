package hugind

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/troupehq/troupe/transports/stdio"
)

// Bridge serves the protocol for one troupe process.
type Bridge struct {
	Home    string             // $TROUPE_HOME: configs/, models/, llama.yml
	Root    *actor.RootContext // asks the servers supervisor
	Servers *actor.PID
	// AgentRuns is where agent.run's runs start (actors.SpawnerAgentRuns).
	AgentRuns *actor.PID
	Log       *slog.Logger
	MaxLine   int // 0: stdio.DefaultMaxLine
	// Trace gets agent runs' TROUPE_TRACE lines (stderr); nil: dropped.
	Trace io.Writer
}

// out serialises whole lines on the output, one flush per line.
type out struct {
	mu  sync.Mutex
	w   *bufio.Writer
	err error
}

func (o *out) write(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(failure(UnknownID, CodeInternal, "encode: %v", err)) // plain struct
	}
	_ = o.raw(b)
}

// raw writes one encoded line.
func (o *out) raw(b []byte) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.err != nil {
		return o.err
	}
	if _, err := o.w.Write(append(b, '\n')); err != nil {
		o.err = err
		return err
	}
	o.err = o.w.Flush()
	return o.err
}

// Serve reads requests from in until EOF, runs each in a goroutine of its
// own and writes events and responses to w. At EOF it waits for the
// requests under way, then returns; ctx's end cancels them.
func (b *Bridge) Serve(ctx context.Context, in io.Reader, w io.Writer) error {
	o := &out{w: bufio.NewWriter(w)}
	rd := stdio.NewReader(in, b.MaxLine)
	conn := newMCPConn(o)
	sess, err := b.serveMCP(ctx, conn)
	if err != nil {
		return fmt.Errorf("start mcp server: %w", err)
	}
	var wg sync.WaitGroup
	defer func() {
		wg.Wait()
		conn.drain() // every MCP call answered, as every NDJSON request is
		_ = sess.Close()
		_ = sess.Wait()
	}()
	for {
		line, err := rd.Next()
		switch {
		case errors.Is(err, io.EOF):
			return nil
		case errors.Is(err, stdio.ErrLineTooLong):
			o.write(failure(UnknownID, CodeInvalidRequest, "%v", err))
			continue
		case err != nil:
			return fmt.Errorf("read stdin: %w", err)
		}
		if isMCP(line) {
			conn.feed(line)
			continue
		}
		req, bad := Decode(line)
		if bad != nil {
			o.write(bad)
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			o.write(b.handle(ctx, req, o))
		}()
	}
}

// requestError is a request whose params are wrong: invalid_request.
type requestError struct{ msg string }

func (e *requestError) Error() string { return e.msg }

func badParams(format string, args ...any) error {
	return &requestError{msg: fmt.Sprintf(format, args...)}
}

// handler runs one method; emit writes an event carrying the request's id.
type handler func(ctx context.Context, b *Bridge, params json.RawMessage, emit func(event string, data any)) (any, error)

func (b *Bridge) handle(ctx context.Context, req Request, o *out) *Response {
	h, ok := methods[req.Method]
	if !ok {
		return failure(req.ID, CodeInternal, "Unknown method")
	}
	emit := func(event string, data any) {
		o.write(Event{Event: event, ID: req.ID, Data: data, SchemaVersion: SchemaVersion})
	}
	return b.run(ctx, req, h, emit)
}

// run runs one method, for NDJSON and MCP alike.
func (b *Bridge) run(ctx context.Context, req Request, h handler, emit func(string, any)) (resp *Response) {
	defer func() {
		// A bug in one method must not end the bridge nor leave the
		// request unanswered.
		if p := recover(); p != nil {
			b.Log.Error("hugind method panicked", "method", req.Method, "panic", p)
			resp = failure(req.ID, CodeInternal, "internal error in %s", req.Method)
		}
	}()
	result, err := h(ctx, b, req.Params, emit)
	var re *requestError
	switch {
	case errors.As(err, &re):
		return failure(req.ID, CodeInvalidRequest, "%s", re.msg)
	case err != nil:
		return failure(req.ID, CodeInternal, "%v", err)
	}
	return success(req.ID, result)
}

// decode reads a method's params; a wrong type is invalid_request.
func decode(raw json.RawMessage, v any) error {
	if err := json.Unmarshal(raw, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return badParams("params.%s must be %s, not %s", te.Field, te.Type.String(), te.Value)
		}
		return badParams("params: %v", err)
	}
	return nil
}

// required refuses a missing string param.
func required(name, v string) error {
	if v == "" {
		return badParams("params.%s is required", name)
	}
	return nil
}
