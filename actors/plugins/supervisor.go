package plugins

import (
	"cmp"
	"slices"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/samber/lo"

	"github.com/troupehq/troupe/actors/actorlog"
)

// Props is one kind's supervisor; specs are registered at its start (the
// config file's).
func Props(opts Options, specs []Spec) *actor.Props {
	opts = opts.withDefaults()
	return actor.PropsFromProducer(func() actor.Actor {
		return &supervisor{opts: opts, initial: specs, children: map[string]*actor.PID{}, infos: map[string]Info{}}
	}, actor.WithSupervisor(actor.NewOneForOneStrategy(0, 0, actor.DefaultDecider)))
}

// supervisor keeps one member per registered name and their last state,
// so reads are answered without asking the members.
type supervisor struct {
	opts     Options
	initial  []Spec
	children map[string]*actor.PID
	infos    map[string]Info
}

// changed is a member's new state.
type changed struct{ info Info }

func (s *supervisor) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *actor.Started:
		for _, sp := range s.initial {
			if err := s.register(ctx, sp); err != nil {
				s.opts.Log.Warn("config: "+s.opts.Kind+" not registered", "name", sp.Name, "error", err)
			}
		}
	case *Register:
		if err := s.register(ctx, m.Spec); err != nil {
			ctx.Respond(&Reply{Err: err})
			return
		}
		ctx.Respond(&Reply{Info: s.infos[m.Spec.Name]})
	case *Delete:
		child, ok := s.children[m.Name]
		if !ok {
			ctx.Respond(&Reply{Err: s.notFound(m.Name)})
			return
		}
		ctx.Stop(child)
		delete(s.children, m.Name)
		delete(s.infos, m.Name)
		ctx.Respond(&Reply{})
	case *Control:
		child, ok := s.children[m.Name]
		if !ok {
			ctx.Respond(&Reply{Err: s.notFound(m.Name)})
			return
		}
		ctx.Forward(child)
	case *Get:
		in, ok := s.infos[m.Name]
		if !ok {
			ctx.Respond(&Reply{Err: s.notFound(m.Name)})
			return
		}
		ctx.Respond(&Reply{Info: s.withVersion(in)})
	case *List:
		out := lo.MapToSlice(s.infos, func(_ string, in Info) Info { return s.withVersion(in) })
		slices.SortFunc(out, func(a, b Info) int { return cmp.Compare(a.Name, b.Name) })
		ctx.Respond(&Listed{Infos: out})
	case *changed:
		if _, ok := s.children[m.info.Name]; ok {
			s.infos[m.info.Name] = m.info
			s.opts.OnEvent(m.info)
		}
	case *actor.Stopping, *actor.Stopped, *actor.Restarting, *actor.Terminated:
	default:
		actorlog.Unhandled(actorlog.For(ctx, "kind", s.opts.Kind), ctx)
	}
}

func (s *supervisor) notFound(name string) error {
	return refuse(ErrNotFound, "unknown "+s.opts.Kind+" "+name)
}

// withVersion adds what the running program reported in its initialize.
func (s *supervisor) withVersion(in Info) Info {
	if in.Status == StatusRunning {
		in.Version = s.opts.Tokens.version(Identity{Kind: s.opts.Kind, Name: in.Name})
	}
	return in
}

func (s *supervisor) register(ctx actor.Context, sp Spec) error {
	if err := sp.Validate(); err != nil {
		return err
	}
	if _, ok := s.children[sp.Name]; ok {
		return refuse(ErrConflict, s.opts.Kind+" "+sp.Name+" is already registered")
	}
	opts := s.opts
	s.children[sp.Name] = ctx.SpawnPrefix(actor.PropsFromProducer(func() actor.Actor { return &member{spec: sp, opts: opts} }), "member")
	// Known at once, so a Get right after the answer finds it.
	status := StatusStarting
	if !*sp.Enabled {
		status = StatusStopped
	}
	s.infos[sp.Name] = Info{Name: sp.Name, Command: sp.Command, Args: sp.Args, Env: sp.Env, Enabled: *sp.Enabled, Status: status}
	return nil
}
