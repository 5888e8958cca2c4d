// Package pipeline is what the ACP connections of one daemon share about
// the processes it runs, hydra-acp's transformers and extensions: which
// transformers are connected and what they intercept, each session's
// chain and its link (the actor that runs a live session's agent→client
// chains and gates its updates until decided), the chain runs and their
// parked processing claims, which connections watch a session, the MCP
// tools and slash commands the processes registered, and the slash
// commands queued.
//
// It is named for what it runs: a message's trip through a session's
// transformers, one after another, each passing it on changed or not, is
// a pipeline (and the daemon's wiring has called the shared value that
// for long). It lives under transports/acp because its only endpoints are
// ACP connections: a connection (transports/acp) serves the processes'
// methods and calls in here; this package never imports that one, and
// talks back to connections by message (Call, Notify, Done, GateOpen,
// AskNow).
//
// Its state is split by concern, each part a small type behind its own
// lock, held for a map operation only, with the methods that concern it
// alone: transformers, chains (with the links' hand-over), gates, claims,
// watchers, released, tools, commands. Pipeline embeds the parts; its
// own methods are the ones that join them (a link's start and hand-over,
// a transformer's arrival, a chain's lookup of who intercepts what).
// ARCHITECTURE.md's "Locks beside the actors" gives their order.
//
// Like every transport it reaches sessions only through the session
// facade (actors/sessions), never the engine's actors or the store.
package pipeline
