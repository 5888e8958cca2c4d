// Package spawner is a supervisor that plain Go code asks to start actors
// under it. An actor started from outside any actor — a client's event
// stream, an agent run a command starts, an extension's reply — would
// otherwise be spawned at protoactor's root, beside the guardian, where no
// supervisor of troupe's sees its failures and shutdown cannot reach it.
// The guardian runs one spawner per kind of such actor, so the live tree
// names them ("troupe/streams/$12", "troupe/agent-runs/$3").
//
// It owns nothing but the spawn: what the children do, and how long they
// live, is their starters' business. It must not block: a spawn is one call
// and one answer. Code inside an actor never uses it; it spawns its own
// children with ctx.Spawn.
package spawner
