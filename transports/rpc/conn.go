package rpc

import (
	"fmt"
	"io"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors/actorlog"
	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/actors/transports"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/transports/stdio"
)

// conn is the connection actor. It alone touches the fold and the
// bookkeeping below. It asks sessions through the facade's Async, whose
// answers come back on its mailbox; local work (the host's bash, files)
// runs in goroutines that answer the same way (offload).
type conn struct {
	cfg    Config
	writer *actor.PID
	lines  *stdio.Queue // to the writer, a line at a time without a message each
	out    *meter
	ctx    actor.Context
	root   *actor.RootContext
	self   *actor.PID
	models *models

	cur         *sess
	inflight    int
	eof, term   bool
	finished    bool
	held        []*result            // answers waiting for the fold to reach their seq
	prompts     map[string]*result   // message id -> answer written at its prompt.queued
	awaitingRun map[string]bool      // prompts queued that have not started
	aborts      map[string][]*result // run id -> aborts answered at its end
	parked      []*result            // session switches waiting for the run to end
	bashCancel  func()
	ids         int
	expanding   []Command // prompts waiting for the first one's expansion
	fileWriting bool      // the session file is being written
	fileAgain   bool      // and must be written again after
}

// result is what a command's requests end in.
type result struct {
	resp *Response
	// session and seq hold the answer until the fold of session has
	// reached seq, so the answer follows its effects.
	session string
	seq     int64
	// promptID: the answer is written when this prompt is queued; failed
	// means it was not, and resp is the error.
	promptID string
	failed   bool
	waitRun  string // answer when this run has ended
	switchTo *sess
	bashDone bool
	// background results update state without answering a command.
	background bool
}

// forceFinish ends a connection whose aborted run does not end.
type forceFinish struct{}

// terminateWait bounds the wait for the aborted run's end after SIGTERM.
const terminateWait = 10 * time.Second

func newConn(cfg Config) *conn {
	return &conn{cfg: cfg, models: newModels(cfg.Models),
		prompts: map[string]*result{}, awaitingRun: map[string]bool{}, aborts: map[string][]*result{}}
}

func (c *conn) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *actor.Started:
		c.start(ctx)
	case *stdio.Input:
		c.handleLine(m.Line)
	case *stdio.InputTooLong:
		c.respond(parseError(nil, m.Err.Error()))
	case *stdio.InputEnd:
		if m.Err != nil {
			c.cfg.Log.Warn("stdin failed", "error", m.Err)
		}
		c.eof = true
		c.maybeFinish()
	case *sessions.Events:
		c.onEvents(m)
	case *sessions.Closed:
		// "unsubscribed" is this connection's own doing (a switch away and
		// back); anything else means the session stopped under us.
		if c.cur != nil && m.SessionID == c.cur.id && m.Reason != "unsubscribed" {
			c.cfg.Log.Warn("session subscription closed", "session", m.SessionID, "reason", m.Reason)
		}
	case *transports.Terminate:
		c.onTerminate()
	case *forceFinish:
		c.finish(ExitTerminated)
	case *drained:
		c.flushDeltas()
	case *actor.Stopping:
		c.stopping()
	default:
		actorlog.Unhandled(actorlog.For(ctx), ctx)
	}
}

// start spawns the stdout writer as a child (it stops with the
// connection), subscribes to a session named on the command line and
// starts reading stdin.
func (c *conn) start(ctx actor.Context) {
	c.ctx, c.root, c.self = ctx, ctx.ActorSystem().Root, ctx.Self()
	root, self := c.root, c.self
	c.out = &meter{w: c.cfg.Out, wake: func() { root.Send(self, &drained{}) }}
	c.lines = &stdio.Queue{}
	c.writer = ctx.SpawnPrefix(stdio.QueueWriterProps(c.out, c.lines), "writer")
	transports.Writes(ctx, c.writer)
	c.cur = c.newSess(c.cfg.SessionID, c.cfg.SessionID != "")
	if c.cur.exists {
		c.ensureBackground(c.cur, nil)
	}
	go stdio.ReadInput(root, self, c.cfg.In, c.cfg.MaxLine)
}

// stopping closes stdin, which ends the reader goroutine at its next read
// (one already blocked on a pipe ends with the process), and drops the
// subscription of a connection stopped before it finished.
func (c *conn) stopping() {
	if cl, ok := c.cfg.In.(io.Closer); ok {
		_ = cl.Close()
	}
	if !c.finished && c.cur != nil && c.cur.sub != nil {
		c.cfg.Sessions.Unsubscribe(c.cur.id, c.cur.sub)
	}
}

// async makes session requests; each answer runs on this mailbox.
func (c *conn) async() sessions.Async { return c.cfg.Sessions.Async(c.ctx) }

// write queues a line; b is copied, so callers may reuse it.
func (c *conn) write(b []byte) {
	c.out.sent(b)
	c.lines.Line(b)
}

// flushDeltas shows the deltas held back while stdout was behind; every
// line the connection writes itself comes after them.
func (c *conn) flushDeltas() {
	if c.cur != nil {
		c.cur.fold.flushDeltas()
	}
}

func (c *conn) respond(r *Response) {
	c.flushDeltas()
	b, err := marshal(r)
	if err != nil {
		b, _ = marshal(Fail(r.ID, r.Command, "marshal response: "+err.Error()))
	}
	c.write(b)
}

// begin counts a command's requests in flight; the function it returns
// ends them with their result (nil: nothing to answer), on the mailbox.
func (c *conn) begin() func(*result) {
	c.inflight++
	return func(r *result) {
		if r == nil {
			r = &result{background: true}
		}
		c.onResult(r)
	}
}

func (c *conn) newID() string {
	c.ids++
	return fmt.Sprintf("rpc-%d-%d", time.Now().UnixNano()%1e9, c.ids)
}

func (c *conn) onEvents(m *sessions.Events) {
	if c.cur == nil || m.SessionID != c.cur.id {
		return
	}
	f := c.cur.fold
	evs := m.Events
	for i := 0; i < len(evs); i++ {
		e := evs[i]
		if e.Seq <= f.LastSeq {
			continue
		}
		if e.Kind == event.MessageDelta && e.Seq > c.cur.quietTo && c.cur.resumed {
			i = f.deltas(evs, i) - 1
			continue
		}
		if e.Seq <= c.cur.quietTo {
			f.emit = nil
		} else {
			f.emit = c.write
			if !c.cur.resumed {
				c.cur.resumed = true
				f.resume()
			}
		}
		f.Apply(e)
		f.emit = c.write
		// Per event, so an answer comes right after the events it waited
		// for and before any later ones.
		if len(c.held) > 0 {
			c.release()
		}
	}
	c.maybeFinish()
}

// release writes the held answers whose effects the fold has seen.
func (c *conn) release() {
	keep := c.held[:0]
	for _, r := range c.held {
		if c.cur == nil || r.session != c.cur.id || c.cur.fold.LastSeq >= r.seq {
			c.respond(r.resp)
			continue
		}
		keep = append(keep, r)
	}
	c.held = keep
	c.maybeFinish()
}

func (c *conn) onResult(r *result) {
	c.inflight--
	switch {
	case r.bashDone:
		c.bashCancel = nil
	}
	switch {
	case r.background:
	case r.promptID != "":
		if r.failed {
			if _, waiting := c.prompts[r.promptID]; waiting {
				delete(c.prompts, r.promptID)
				delete(c.awaitingRun, r.promptID)
				c.respond(r.resp)
			}
		}
	case r.switchTo != nil:
		c.switchSession(r)
	case r.waitRun != "" && c.cur.fold.runID() == r.waitRun:
		c.aborts[r.waitRun] = append(c.aborts[r.waitRun], r)
	case r.session != "" && c.cur != nil && r.session == c.cur.id && c.cur.fold.LastSeq < r.seq:
		c.held = append(c.held, r)
	default:
		c.respond(r.resp)
	}
	c.maybeFinish()
}

// hooks wires a fold's callbacks to this connection.
func (c *conn) hooks(f *fold) {
	f.onQueued = func(id string) {
		if r, ok := c.prompts[id]; ok {
			delete(c.prompts, id)
			c.respond(r.resp)
		}
	}
	f.onRunStarted = func(id string) { delete(c.awaitingRun, id) }
	f.onRunEnded = func(id string) {
		if c.cur != nil && c.cur.fold == f && f.emit != nil {
			c.writeSessionFile() // a live run's end, not one replayed
		}
		for _, r := range c.aborts[id] {
			c.respond(r.resp)
		}
		delete(c.aborts, id)
		parked := c.parked
		c.parked = nil
		for _, r := range parked {
			c.switchSession(r)
		}
		c.maybeFinish()
	}
}

func (c *conn) streaming() bool {
	return c.cur.fold.Run() != nil || len(c.awaitingRun) > 0
}

func (c *conn) busy() bool {
	return c.inflight > 0 || len(c.prompts) > 0 || len(c.held) > 0 || len(c.parked) > 0 || len(c.aborts) > 0 || c.streaming()
}

// maybeFinish ends the connection once stdin ended and everything owed is
// written: answers, and the run in progress (a host piping a script gets
// its whole output). After SIGTERM only the aborted run is waited for.
func (c *conn) maybeFinish() {
	switch {
	case c.finished:
	case c.term && c.cur.fold.Run() == nil && c.bashCancel == nil:
		c.finish(ExitTerminated)
	case c.eof && !c.term && !c.busy():
		c.finish(0)
	}
}

func (c *conn) onTerminate() {
	if c.term {
		return
	}
	c.term = true
	if c.bashCancel != nil {
		c.bashCancel()
	}
	if c.cur.fold.Run() != nil {
		c.async().Cancel(c.cur.id, "terminated", nil)
	}
	self, root := c.self, c.root
	time.AfterFunc(terminateWait, func() { root.Send(self, &forceFinish{}) })
	c.maybeFinish()
}

// finish reports the exit status once stdout is flushed; the flush is
// awaited off the mailbox.
func (c *conn) finish(code int) {
	if c.finished {
		return
	}
	c.finished = true
	c.flushDeltas()
	if c.cur != nil && c.cur.sub != nil {
		c.cfg.Sessions.Unsubscribe(c.cur.id, c.cur.sub)
	}
	ctx := c.ctx
	ctx.ReenterAfter(ctx.RequestFuture(c.writer, &stdio.Flush{}, 10*time.Second), func(res any, err error) {
		if f, ok := res.(*stdio.Flushed); ok && f.Err != nil {
			c.cfg.Log.Warn("stdout write failed", "error", f.Err)
		}
		transports.Finish(ctx, transports.Done{Code: code})
	})
}

func blocks(text string, imgs []Image) []event.Block {
	out := []event.Block{{Type: "text", Text: text}}
	for _, i := range imgs {
		out = append(out, event.Block{Type: "image", Data: i.Data, MimeType: i.MimeType})
	}
	return out
}
