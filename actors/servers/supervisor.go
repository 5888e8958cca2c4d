package servers

import (
	"cmp"
	"context"
	"maps"
	"slices"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/troupehq/troupe/actors/actorlog"
	"github.com/troupehq/troupe/persistence"
)

// Props is the servers supervisor.
func Props(opts Options) *actor.Props {
	opts = opts.withDefaults()
	return actor.PropsFromProducer(func() actor.Actor {
		return &supervisor{opts: opts, children: map[string]*actor.PID{}, infos: map[string]Info{}}
	}, actor.WithSupervisor(actor.NewOneForOneStrategy(0, 0, actor.DefaultDecider)))
}

// supervisor keeps one child per config name for its lifetime: a stopped
// server's child is idle and cheap, and keeping it spares a race between a
// child going away and a Start forwarded to it.
type supervisor struct {
	opts     Options
	children map[string]*actor.PID
	infos    map[string]Info
	rec      *recorder // nil without a store
}

// record and forget ask the supervisor to write a child's server record.
type record struct{ r persistence.ServerRecord }
type forget struct {
	name string
	pid  int
}

// changed is a child's status change, for the supervisor's list.
type changed struct{ ev Event }

func (s *supervisor) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *Start:
		ctx.Forward(s.child(ctx, m.Name))
	case *Adopt:
		ctx.Forward(s.child(ctx, m.Record.Name))
	case *Stop:
		child, ok := s.children[m.Name]
		if !ok {
			ctx.Respond(&Stopped{Name: m.Name, Status: StatusAlreadyStopped})
			return
		}
		ctx.Forward(child)
	case *List:
		out := slices.SortedFunc(maps.Values(s.infos), func(a, b Info) int { return cmp.Compare(a.Name, b.Name) })
		ctx.Respond(&Listed{Servers: out})
	case *changed:
		s.infos[m.ev.Name] = m.ev.Info
		s.opts.OnEvent(m.ev)
	case *record:
		if s.rec != nil {
			s.rec.add(func(c context.Context) error { return s.opts.Store.RecordServer(c, m.r) })
		}
	case *forget:
		if s.rec != nil {
			s.rec.add(func(c context.Context) error { return s.opts.Store.ForgetServer(c, m.name, m.pid) })
		}
	case *actor.Started:
		if s.opts.Store != nil {
			s.rec = startRecorder(s.opts.Store, s.opts.Log)
		}
	case *actor.Stopped:
		// The children are gone; their last records are queued. A server
		// stopped with troupe keeps its record: the next Cleanup finds its
		// program gone and deletes it.
		if s.rec != nil {
			s.rec.stop()
		}
	case *actor.Stopping, *actor.Terminated:
	default:
		actorlog.Unhandled(actorlog.For(ctx), ctx)
	}
}

// child is config name's server actor, spawned on first use.
func (s *supervisor) child(ctx actor.Context, name string) *actor.PID {
	if child, ok := s.children[name]; ok {
		return child
	}
	child := ctx.SpawnPrefix(actor.PropsFromProducer(func() actor.Actor {
		return &server{name: name, opts: s.opts}
	}), "server")
	s.children[name] = child
	return child
}
