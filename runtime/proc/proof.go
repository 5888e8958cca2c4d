package proc

import "errors"

// MarkerEnv names the variable a Cmd with a Marker carries in its
// environment: KillProven looks for it in the process, so that only a
// process this troupe started with that very marker is ever signalled.
const MarkerEnv = "TROUPE_TOOL_RUN"

// Proof is what a started Cmd leaves behind for a later troupe to tell,
// after a crash, whether a pid still is that command: the pid (its group's
// id too: the command leads a group of its own), its start time in clock
// ticks since boot, and the boot it started in. A reused pid has another
// start time; a pid of an earlier boot another boot id. The zero Proof
// proves nothing.
type Proof struct {
	PID   int
	Start int64
	Boot  string
}

// ErrUnproven refuses a signal: the target is not provably the group this
// troupe started (no proof, another process, a group that must never be
// signalled).
var ErrUnproven = errors.New("not provably a process group troupe started")

// ErrGone reports that the recorded process no longer runs: nothing to
// kill.
var ErrGone = errors.New("the recorded process is gone")
