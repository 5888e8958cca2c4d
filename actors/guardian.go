package actors

import (
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors/actorlog"
	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/actors/storewriter"
	"github.com/troupehq/troupe/actors/transports"
	"github.com/troupehq/troupe/persistence"
)

type treeQuery struct{}

// spawnChild asks the guardian for a child of its own beyond the fixed
// ones (the servers supervisor), so that it is supervised and stopped with
// the tree; the answer is *spawnedChild.
type spawnChild struct {
	props *actor.Props
	name  string
}

type spawnedChild struct {
	pid *actor.PID
	err error
}

type treeReply struct {
	writer, registry, transports *actor.PID
}

// guardian is the root of troupe's tree. It restarts a crashed writer,
// sessions or transports supervisor a few times; past that it lets the
// failure stop them.
type guardian struct {
	store      *persistence.Store
	wopts      storewriter.Options
	scfg       sessions.Config
	writer     *actor.PID
	registry   *actor.PID
	transports *actor.PID
}

func guardianProps(store *persistence.Store, wopts storewriter.Options, scfg sessions.Config) *actor.Props {
	return actor.PropsFromProducer(func() actor.Actor {
		return &guardian{store: store, wopts: wopts, scfg: scfg}
	}, actor.WithSupervisor(actor.NewOneForOneStrategy(3, 10*time.Second, actor.DefaultDecider)),
		actor.WithReceiverMiddleware(logPanics))
}

func (g *guardian) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *actor.Started:
		var err error
		if g.writer, err = ctx.SpawnNamed(storewriter.Props(g.store, g.wopts), "store-writer"); err != nil {
			panic(err)
		}
		g.scfg.Session.Writer = g.writer
		if g.registry, err = ctx.SpawnNamed(sessions.Props(g.scfg), "sessions"); err != nil {
			panic(err)
		}
		if g.transports, err = ctx.SpawnNamed(transports.Props().Configure(actor.WithReceiverMiddleware(logPanics)), "transports"); err != nil {
			panic(err)
		}
	case *spawnChild:
		pid, err := ctx.SpawnNamed(m.props, m.name)
		ctx.Respond(&spawnedChild{pid: pid, err: err})
	case *treeQuery:
		ctx.Respond(&treeReply{writer: g.writer, registry: g.registry, transports: g.transports})
	default:
		actorlog.Unhandled(actorlog.For(ctx), ctx)
	}
}
