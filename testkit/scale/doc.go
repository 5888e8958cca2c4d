// Package scale runs many scripted sessions at once in one process through
// the public Go API (actors and the actors/sessions facade) and
// measures what they cost: wall time, committed events per second, peak
// resident memory, and the memory and goroutines each idle live session
// keeps once its runs are over. It then loads every session's log from the
// store and checks it is complete, so a fast run that lost events fails.
//
// The shape of work: each session is created, subscribed to (live), and
// given Prompts prompts at once, which its queue runs one after another.
// The in-process scripted provider (testkit/llmserver) answers every
// request with Deltas one-token text deltas; the session's first answer
// also calls the read tool on a small file (a read spawns no process, so
// 10,000 sessions measure troupe rather than fork/exec), and the answer
// after the tool result is text alone. A session therefore makes
// Prompts+1 model calls.
//
// testkit/cmd/troupe-scale runs it for one N per process (so each peak is
// its own); `make bench-scale` runs that for N = 100, 1,000 and 10,000.
//
// It uses only the public Go API a program embedding troupe has
// (actors, the facade, the store to verify logs), never a session's
// actors.
package scale
