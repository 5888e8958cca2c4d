// Package proc starts child processes the way troupe needs them, and kills
// them again: it is the one place that knows about process groups.
//
// On Linux a Cmd runs in a session of its own, and so in its own process
// group, whose id is the command's pid: everything it spawns can be
// signalled at once, and it has no controlling terminal, so a program that
// prompts on the terminal fails at once instead of stopping on SIGTTIN. A
// parent-death signal kills the command if troupe dies, and a watcher in
// the group kills the rest of it then, even when troupe dies by SIGKILL;
// a Cmd with Outlive set has neither, for a program troupe adopts again
// after it restarts.
// Elsewhere a Cmd is a plain exec.Cmd and only the command itself is
// killed.
//
// KillGroup kills a group by id alone, for recovery after a crash from a
// recorded id; Alive and GroupAlive tell whether what a crash left behind
// still runs.
//
// It is a library: no actors. actors/process wraps a Cmd in an actor for
// long-lived children; the bash tool uses a Cmd directly.
//
// A child starts in a new session with Pdeathsig and the death watcher, so
// it dies with troupe; it is killed or terminated as a group; liveness is
// asked here too.
//
// It imports no troupe package.
package proc
