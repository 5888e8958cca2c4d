// Package acprec owns the recording of what a daemon and an ACP agent
// exchange over the agent's stdio, as testkit/cmd/troupe-acptee writes it
// (start-N.jsonl, one Line a message), its normalisation (the paths a run
// made; the agent's very long strings cut), and Replay: an agent that
// answers from a recording and reports every message the daemon sends
// that differs from the recorded one.
//
// It depends on the standard library only, so the replay agent
// (testkit/cmd/troupe-acpreplay) stays a small program.
package acprec
