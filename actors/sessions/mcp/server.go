package mcp

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/troupehq/troupe/actors/actorlog"
	"github.com/troupehq/troupe/actors/process"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/runtime/tools"
)

// Option configures the actor Props builds.
type Option func(*server)

// WithToolset has the actor keep its current tools in set, for the
// session's turns to read at each step.
func WithToolset(set *Toolset) Option { return func(s *server) { s.set = set } }

// WithNotify sends the actor's *Status messages to pid instead of its
// parent.
func WithNotify(pid *actor.PID) Option { return func(s *server) { s.notify = pid } }

// WithLastStatus tells the actor the server's last status in the session's
// log (an event.MCPStatus* value, or ""), so a session started again does
// not report an unavailable server a second time, and reports it when a
// server last seen down comes up.
func WithLastStatus(status string) Option {
	return func(s *server) {
		s.reported = status == event.MCPStatusUnavailable
		s.down = status == event.MCPStatusUnavailable || status == event.MCPStatusLost
	}
}

// Props returns the actor owning the connection to one MCP server. cwd is
// the session's working directory, where a stdio server runs. The actor
// connects on Started (and again after a restart) and answers GetTools.
// When the connection drops, or a connect fails, it connects again after a
// growing delay (see reconnect), starting a stdio server's process anew.
func Props(cfg ServerConfig, cwd string, opts ...Option) *actor.Props {
	return actor.PropsFromProducer(func() actor.Actor {
		s := &server{cfg: cfg, cwd: cwd}
		for _, o := range opts {
			o(s)
		}
		return s
	})
}

type server struct {
	cfg    ServerConfig
	log    *slog.Logger
	cwd    string
	set    *Toolset
	notify *actor.PID
	dial   func() (sdk.Transport, error) // tests: replaces the transport

	conn    *conn // this attempt's; nil between attempts and once stopping
	ready   bool  // the attempt finished: requests are answered at once
	tools   []tools.Tool
	err     error // why there is no usable connection, once ready
	waiting []waiter
	listGen uint64 // the list_changed generation s.tools answers

	attempt  int // failed or dropped connections in a row
	timerGen int // tells a stale retry from the current one
	timer    *time.Timer
	everUp   bool      // connected at least once
	reported bool      // the server's unavailability was reported
	down     bool      // unavailable or lost was reported, and nothing since
	upSince  time.Time // when the current connection came up
	stopping bool
}

// waiter is a request that arrived before the connect finished.
type waiter struct {
	to    *actor.PID
	tools bool // GetTools; otherwise getConn
}

func (s *server) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *actor.Started:
		s.log = actorlog.For(ctx, "server", s.cfg.Name)
		s.start(ctx)
	case *GetTools:
		s.request(ctx, waiter{to: ctx.Sender(), tools: true})
	case *getConn:
		s.request(ctx, waiter{to: ctx.Sender()})
	case *connectDone:
		s.connected(ctx, m)
	case *connLost:
		s.lost(ctx, m)
	case *retry:
		s.retry(ctx, m)
	case *toolsChanged:
		s.toolsChanged(ctx, m)
	case *toolsListed:
		s.toolsListed(m)
	case *process.Started:
		s.processStarted(ctx, m)
	case *process.Exited:
		s.processExited(ctx, m)
	case *actor.Restarting:
		s.shutdown(ctx, "restarting")
	case *actor.Stopping:
		s.shutdown(ctx, "stopping")
	default:
		actorlog.Unhandled(s.log, ctx)
	}
}

// start connects, or for a stdio server first starts its process in a
// child actor; processStarted connects once it runs. Requests wait for
// this attempt's outcome.
func (s *server) start(ctx actor.Context) {
	c := newConn(s.cfg, s.cwd)
	c.dial = s.dial
	self, root := ctx.Self(), ctx.ActorSystem().Root
	c.onToolsChanged = func() { root.Send(self, &toolsChanged{conn: c}) }
	s.conn, s.ready, s.listGen = c, false, 0
	if s.dial == nil && s.cfg.Validate() == nil && s.cfg.Transport() == TransportStdio {
		c.proc = ctx.Spawn(process.Props(c.processSpec(), ctx.Self()))
		return
	}
	s.connect(ctx, c)
}

// fromProcess reports whether a message came from the current connection's
// process actor, not a predecessor's (stopped with its attempt).
func (s *server) fromProcess(ctx actor.Context) (*conn, bool) {
	c := s.conn
	return c, c != nil && c.proc != nil && c.proc.Equal(ctx.Sender())
}

func (s *server) processStarted(ctx actor.Context, m *process.Started) {
	c, ok := s.fromProcess(ctx)
	if !ok {
		return
	}
	root, proc := ctx.ActorSystem().Root, c.proc
	c.setChild(&child{started: m, terminate: func(grace time.Duration) {
		root.Send(proc, &process.Terminate{Grace: grace})
	}})
	s.connect(ctx, c)
}

// processExited matters only when the server never started: once it has,
// the connection's end reports it.
func (s *server) processExited(ctx actor.Context, m *process.Exited) {
	c, ok := s.fromProcess(ctx)
	if !ok || c.getChild() != nil {
		return
	}
	s.connected(ctx, &connectDone{conn: c, err: c.fail("connect", m.Err)})
}

// connect connects in a goroutine that reports back with connectDone, then
// stays to watch the connection and reports connLost if the server ends it.
func (s *server) connect(ctx actor.Context, c *conn) {
	self, sys, name := ctx.Self(), ctx.ActorSystem(), s.cfg.Name
	go func() {
		listed, err := c.open()
		if c.isClosed() && err != nil {
			return // the actor is gone or restarted and does not care
		}
		if err != nil {
			sys.Root.Send(self, &connectDone{conn: c, err: err})
			return
		}
		sys.Root.Send(self, &connectDone{conn: c, tools: newTools(name, listed, sys, self)})
		c.watch(func(err error) { sys.Root.Send(self, &connLost{conn: c, err: err}) })
	}()
}

func (s *server) request(ctx actor.Context, w waiter) {
	if w.to == nil {
		return // sent without a sender: nobody to answer
	}
	if c := s.conn; s.ready && s.err == nil && c != nil && c.isDead() {
		// The server is gone and its connLost is on the way: restart now,
		// so the request waits for the new connection.
		s.lost(ctx, &connLost{conn: c, err: c.fail("connection ended", errClosed)})
	}
	if !s.ready {
		s.waiting = append(s.waiting, w)
		return
	}
	s.answer(ctx, w)
}

func (s *server) answer(ctx actor.Context, w waiter) {
	if w.tools {
		reply := &ToolsReply{Server: s.cfg.Name, Err: s.err}
		if s.err == nil {
			reply.Tools = slices.Clone(s.tools)
		}
		ctx.Send(w.to, reply)
		return
	}
	if s.err != nil {
		ctx.Send(w.to, &connReply{err: s.err})
		return
	}
	ctx.Send(w.to, &connReply{conn: s.conn})
}

func (s *server) answerWaiting(ctx actor.Context) {
	for _, w := range s.waiting {
		s.answer(ctx, w)
	}
	s.waiting = nil
}

func (s *server) connected(ctx actor.Context, m *connectDone) {
	if m.conn != s.conn {
		return // a predecessor's connection; it was closed when that one went
	}
	s.ready, s.err = true, m.err
	if m.err != nil {
		s.answerWaiting(ctx)
		s.attemptFailed(ctx, m.conn, m.err)
		return
	}
	s.tools, s.everUp, s.upSince = m.tools, true, time.Now()
	s.set.set(s.cfg.Name, m.tools)
	s.log.Info("mcp server connected", "tools", len(m.tools))
	if s.down {
		s.down = false
		s.tell(ctx, &Status{Server: s.cfg.Name, Status: event.MCPStatusConnected, Tools: len(m.tools)})
	}
	s.answerWaiting(ctx)
	if m.conn.changed() > 0 {
		// The list changed while it was being listed: list it again, or
		// calls would wait for a re-list that never comes.
		s.toolsChanged(ctx, &toolsChanged{conn: m.conn})
	}
}

// attemptFailed reports a server that never came up, once, clearly; later
// failures are only logged at debug level. Either way the actor tries
// again after the next delay.
func (s *server) attemptFailed(ctx actor.Context, c *conn, err error) {
	switch {
	case !s.everUp && !s.reported:
		s.reported, s.down = true, true
		s.log.Warn("mcp server unavailable; the session goes on without its tools", "error", err)
		s.tell(ctx, &Status{Server: s.cfg.Name, Status: event.MCPStatusUnavailable, Err: err})
	case !s.everUp:
		s.log.Debug("mcp server still unavailable", "error", err)
	default:
		s.log.Debug("mcp server connect failed", "error", err)
	}
	s.release(ctx, c)
	s.conn = nil
	s.schedule(ctx)
}

// lost restarts a server whose connection dropped (a stdio server exited,
// an HTTP session ended): after a delay that grows while it keeps
// dropping, a new process and connection. Requests meanwhile wait for the
// reconnect, so the tools it offered keep working.
func (s *server) lost(ctx actor.Context, m *connLost) {
	if m.conn != s.conn || !s.ready || s.err != nil {
		return
	}
	if reconnect.Stable(time.Since(s.upSince)) {
		s.attempt = 0
	}
	s.log.Warn("mcp server connection ended; restarting it", "error", m.err)
	s.down = true
	s.tell(ctx, &Status{Server: s.cfg.Name, Status: event.MCPStatusLost, Err: m.err})
	s.release(ctx, m.conn)
	s.conn, s.ready = nil, false
	s.schedule(ctx)
}

// release closes an attempt's connection off the mailbox (reaping a stdio
// child), then stops its process actor, which holds the pipes.
func (s *server) release(ctx actor.Context, c *conn) {
	root, proc := ctx.ActorSystem().Root, c.proc
	go func() {
		c.close()
		if proc != nil {
			root.Stop(proc)
		}
	}()
}

// schedule starts the next attempt after the backoff delay.
func (s *server) schedule(ctx actor.Context) {
	d := reconnect.Delay(s.attempt)
	s.attempt++
	s.timerGen++
	gen, self, root := s.timerGen, ctx.Self(), ctx.ActorSystem().Root
	s.timer = time.AfterFunc(d, func() { root.Send(self, &retry{gen: gen}) })
	level := slog.LevelDebug
	if s.everUp {
		level = slog.LevelInfo // a server that ran: each restart is news
	}
	s.log.Log(context.Background(), level, "mcp server restart scheduled", "delay", d, "attempt", s.attempt)
}

func (s *server) retry(ctx actor.Context, m *retry) {
	if m.gen != s.timerGen || s.stopping || s.conn != nil {
		return
	}
	s.timer = nil
	s.start(ctx)
}

// toolsChanged re-lists the tools off the mailbox.
func (s *server) toolsChanged(ctx actor.Context, m *toolsChanged) {
	c := m.conn
	if c != s.conn || !s.ready || s.err != nil {
		return
	}
	gen := c.changed()
	self, sys, name := ctx.Self(), ctx.ActorSystem(), s.cfg.Name
	go func() {
		listed, err := c.relist()
		reply := &toolsListed{conn: c, gen: gen, err: err}
		if err == nil {
			reply.tools = newTools(name, listed, sys, self)
		}
		sys.Root.Send(self, reply)
	}()
}

// toolsListed offers the new tools from the next request on, then lets the
// calls that waited for them answer.
func (s *server) toolsListed(m *toolsListed) {
	if m.conn != s.conn || m.gen <= s.listGen {
		return
	}
	s.listGen = m.gen
	if m.err != nil {
		s.log.Warn("mcp server tools changed but could not be listed; keeping the old ones", "error", m.err)
	} else {
		s.tools = m.tools
		s.set.set(s.cfg.Name, m.tools)
		s.log.Info("mcp server tools changed", "tools", len(m.tools))
	}
	m.conn.markListed(m.gen)
}

// tell sends a status to the parent (or WithNotify's PID).
func (s *server) tell(ctx actor.Context, st *Status) {
	to := s.notify
	if to == nil {
		to = ctx.Parent()
	}
	if to != nil {
		ctx.Send(to, st)
	}
}

// shutdown closes the connection in a goroutine and waits for it only
// briefly, so a stuck server cannot hold the mailbox. The goroutine always
// ends: conn.close is bounded by the stdio grace periods and the HTTP
// client's own timeouts.
func (s *server) shutdown(ctx actor.Context, why string) {
	s.stopping = true
	if s.timer != nil {
		s.timer.Stop()
		s.timer = nil
	}
	c := s.conn
	s.conn = nil
	s.ready, s.tools, s.err = true, nil, fmt.Errorf("mcp server %q: %s", s.cfg.Name, why)
	s.answerWaiting(ctx)
	if c == nil {
		return
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		c.close()
	}()
	t := time.NewTimer(closeWait)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		s.log.Warn("mcp server still closing; not waiting")
	}
}
