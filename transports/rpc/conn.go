package rpc

import (
	"context"
	"fmt"
	"github.com/troupehq/troupe/actors/actorlog"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/transports/stdio"
)

// conn is the connection actor. It alone touches the fold and the
// bookkeeping below; blocking work (session requests, the store, bash,
// files) runs in goroutines that report back with *result.
type conn struct {
	cfg    Config
	writer *actor.PID
	out    *meter
	done   chan<- int
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
	bashCancel  context.CancelFunc
	ids         int
}

// result is what a command's goroutine reports.
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

type terminate struct{}
type forceFinish struct{}
type subscribed struct {
	session string
	sub     *actor.PID
}

func newConn(cfg Config, writer *actor.PID, out *meter, done chan<- int) *conn {
	return &conn{cfg: cfg, writer: writer, out: out, done: done, models: newModels(cfg.Models),
		prompts: map[string]*result{}, awaitingRun: map[string]bool{}, aborts: map[string][]*result{}}
}

func (c *conn) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *actor.Started:
		c.root, c.self = ctx.ActorSystem().Root, ctx.Self()
		c.cur = c.newSess(c.cfg.SessionID, c.cfg.SessionID != "")
		if c.cur.exists {
			c.spawnEnsure(c.cur, nil)
		}
		go readLines(c.root, c.self, c.cfg.In, c.cfg.MaxLine)
	case *inLine:
		c.handleLine(m.data)
	case *inError:
		c.respond(parseError(nil, m.err.Error()))
	case *inEOF:
		if m.err != nil {
			c.cfg.Log.Warn("stdin failed", "error", m.err)
		}
		c.eof = true
		c.maybeFinish()
	case *result:
		c.onResult(m)
	case *sessions.Events:
		c.onEvents(m)
	case *history:
		c.onHistory(m)
	case *subscribed:
		c.onSubscribed(m)
	case *sessions.Closed:
		// "unsubscribed" is this connection's own doing (a switch away and
		// back); anything else means the session stopped under us.
		if c.cur != nil && m.SessionID == c.cur.id && m.Reason != "unsubscribed" {
			c.cfg.Log.Warn("session subscription closed", "session", m.SessionID, "reason", m.Reason)
		}
	case *terminate:
		c.onTerminate()
	case *forceFinish:
		c.finish(ExitTerminated)
	case *drained:
		c.flushDeltas()
	default:
		actorlog.Unhandled(actorlog.For(ctx), ctx)
	}
}

func (c *conn) write(b []byte) {
	c.out.sent(b)
	c.root.Send(c.writer, &stdio.Line{Data: b})
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

// spawn runs fn off the mailbox; its result comes back as a message.
func (c *conn) spawn(fn func() *result) {
	c.inflight++
	go func() {
		r := fn()
		if r == nil {
			r = &result{background: true}
		}
		c.root.Send(c.self, r)
	}()
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
		id := c.cur.id
		go func() {
			_, _ = c.cfg.Sessions.Cancel(context.Background(), id, "terminated")
		}()
	}
	self, root := c.self, c.root
	time.AfterFunc(10*time.Second, func() { root.Send(self, &forceFinish{}) })
	c.maybeFinish()
}

// finish flushes stdout and reports the exit status; the flush is awaited
// off the mailbox.
func (c *conn) finish(code int) {
	if c.finished {
		return
	}
	c.finished = true
	c.flushDeltas()
	if c.cur != nil && c.cur.sub != nil {
		c.cfg.Sessions.Unsubscribe(c.cur.id, c.cur.sub)
	}
	root, writer, done, log := c.root, c.writer, c.done, c.cfg.Log
	go func() {
		res, err := root.RequestFuture(writer, &stdio.Flush{}, 10*time.Second).Result()
		if err == nil {
			if f, ok := res.(*stdio.Flushed); ok && f.Err != nil {
				log.Warn("stdout write failed", "error", f.Err)
			}
		}
		done <- code
	}()
}

func blocks(text string, imgs []Image) []event.Block {
	out := []event.Block{{Type: "text", Text: text}}
	for _, i := range imgs {
		out = append(out, event.Block{Type: "image", Data: i.Data, MimeType: i.MimeType})
	}
	return out
}
