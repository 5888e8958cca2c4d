package actors

import (
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors/actorlog"
	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/actors/spawner"
	"github.com/troupehq/troupe/actors/storewriter"
	"github.com/troupehq/troupe/actors/transports"
	"github.com/troupehq/troupe/persistence"
)

type treeQuery struct{}

type treeReply struct {
	writer, registry, transports *actor.PID
	spawners                     map[string]*actor.PID
}

// The spawners the guardian runs for actors started outside any actor
// (actors/spawner), by the name each has in the tree.
const (
	SpawnerStreams    = "streams"     // a Go reader's session stream (sessions.Stream)
	SpawnerAgentRuns  = "agent-runs"  // agent.Run's runs
	SpawnerChainLinks = "chain-links" // a chained session's transformer link (troupe daemon), named by its session
)

// spawners: each spawner's name and the prefix of its children's.
var spawners = []struct{ name, child string }{
	{SpawnerStreams, "stream"}, {SpawnerAgentRuns, "run"}, {SpawnerChainLinks, "link"},
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
	spawners   map[string]*actor.PID
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
		// Before the sessions: their facade's streams start under one.
		g.spawners = make(map[string]*actor.PID, len(spawners))
		for _, sp := range spawners {
			if g.spawners[sp.name], err = ctx.SpawnNamed(spawner.Props(sp.child, nil, logPanics), sp.name); err != nil {
				panic(err)
			}
		}
		if g.registry, err = ctx.SpawnNamed(sessions.Props(g.scfg), "sessions"); err != nil {
			panic(err)
		}
		if g.transports, err = ctx.SpawnNamed(transports.Props().Configure(actor.WithReceiverMiddleware(logPanics)), "transports"); err != nil {
			panic(err)
		}
	case *spawner.Start:
		// A supervisor a command adds (Runtime.SpawnChild): supervised
		// and stopped with the tree.
		pid, err := ctx.SpawnNamed(m.Props, m.Name)
		ctx.Respond(&spawner.Started{PID: pid, Err: err})
	case *treeQuery:
		ctx.Respond(&treeReply{writer: g.writer, registry: g.registry, transports: g.transports, spawners: g.spawners})
	default:
		actorlog.Unhandled(actorlog.For(ctx), ctx)
	}
}
