// Package spawner is a supervisor that plain Go code asks to start actors
// under it. An actor started from outside any actor — a client's event
// stream, an agent run a command starts — would
// otherwise be spawned at protoactor's root, beside the guardian, where no
// supervisor of troupe's sees its failures and shutdown cannot reach it.
// Code inside an actor that starts an actor it does not own (a chained
// session's link) sends Start without waiting and reaches the child by
// name with Tell, which the spawner delivers in order.
// The guardian runs one spawner per kind of such actor, so the live tree
// names them ("troupe/streams/stream$12", "troupe/agent-runs/run$3").
//
// It owns nothing but the spawn: what the children do, and how long they
// live, is their starters' business. It must not block: a spawn is one call
// and one answer. Code inside an actor never waits on it (Spawn), and
// spawns its own children with ctx.Spawn.
package spawner
