package servers

import (
	"sort"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/troupehq/troupe/actors/actorlog"
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
}

// changed is a child's status change, for the supervisor's list.
type changed struct{ ev Event }

func (s *supervisor) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *Start:
		child, ok := s.children[m.Name]
		if !ok {
			child = ctx.Spawn(actor.PropsFromProducer(func() actor.Actor {
				return &server{name: m.Name, opts: s.opts}
			}))
			s.children[m.Name] = child
		}
		ctx.Forward(child)
	case *Stop:
		child, ok := s.children[m.Name]
		if !ok {
			ctx.Respond(&Stopped{Name: m.Name, Status: StatusAlreadyStopped})
			return
		}
		ctx.Forward(child)
	case *List:
		out := make([]Info, 0, len(s.infos))
		for _, i := range s.infos {
			out = append(out, i)
		}
		sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
		ctx.Respond(&Listed{Servers: out})
	case *changed:
		s.infos[m.ev.Name] = m.ev.Info
		s.opts.OnEvent(m.ev)
	case *actor.Started, *actor.Stopping, *actor.Stopped, *actor.Terminated:
	default:
		actorlog.Unhandled(actorlog.For(ctx), ctx)
	}
}
