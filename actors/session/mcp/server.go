package mcp

import (
	"fmt"
	"github.com/troupehq/troupe/actors/actorlog"
	"log/slog"
	"slices"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/troupehq/troupe/actors/process"
	"github.com/troupehq/troupe/runtime/tools"
)

// Props returns the actor owning the connection to one MCP server. cwd is
// the session's working directory, where a stdio server runs. The actor
// connects on Started (and again after a restart) and answers GetTools.
func Props(cfg ServerConfig, cwd string) *actor.Props {
	return actor.PropsFromProducer(func() actor.Actor {
		return &server{cfg: cfg, cwd: cwd}
	})
}

type server struct {
	cfg ServerConfig
	log *slog.Logger
	cwd string

	conn    *conn // this incarnation's; nil once stopping
	ready   bool  // connect finished: requests are answered at once
	tools   []tools.Tool
	err     error // why there is no usable connection, once ready
	waiting []waiter
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
// child actor; processStarted connects once it runs.
func (s *server) start(ctx actor.Context) {
	c := newConn(s.cfg, s.cwd)
	s.conn = c
	if s.cfg.Validate() == nil && s.cfg.Transport() == TransportStdio {
		c.proc = ctx.Spawn(process.Props(c.processSpec(), ctx.Self()))
		return
	}
	s.connect(ctx, c)
}

// fromProcess reports whether a message came from the current connection's
// process actor, not a predecessor's (stopped with its incarnation).
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
	if !s.ready {
		s.waiting = append(s.waiting, w)
		return
	}
	s.answer(ctx, w)
}

func (s *server) answer(ctx actor.Context, w waiter) {
	if w.tools {
		ctx.Send(w.to, &ToolsReply{Server: s.cfg.Name, Tools: slices.Clone(s.tools), Err: s.err})
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
	s.ready, s.tools, s.err = true, m.tools, m.err
	if m.err != nil {
		s.log.Warn("mcp server unavailable", "error", m.err)
	} else {
		s.log.Info("mcp server connected", "tools", len(m.tools))
	}
	s.answerWaiting(ctx)
}

// lost keeps the actor alive but unusable: the session decides whether to
// stop it or spawn a new one.
func (s *server) lost(ctx actor.Context, m *connLost) {
	if m.conn != s.conn || s.err != nil {
		return
	}
	s.log.Warn("mcp server connection ended", "error", m.err)
	s.tools, s.err = nil, m.err
	go m.conn.close() // reap the child; the connection is already gone
}

// shutdown closes the connection in a goroutine and waits for it only
// briefly, so a stuck server cannot hold the mailbox. The goroutine always
// ends: conn.close is bounded by the stdio grace periods and the HTTP
// client's own timeouts.
func (s *server) shutdown(ctx actor.Context, why string) {
	c := s.conn
	if c == nil {
		return
	}
	s.conn = nil
	s.ready, s.tools, s.err = true, nil, fmt.Errorf("mcp server %q: %s", s.cfg.Name, why)
	s.answerWaiting(ctx)
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
