package proc

import (
	"os"
	"os/exec"
)

// Cmd is an exec.Cmd that runs isolated in its own process group (see the
// package doc). Set the exec.Cmd's fields as usual, except ExtraFiles and
// SysProcAttr, which Start owns; then Start and Wait. Once the command is
// done with, call Release, or Kill what is left of its group.
type Cmd struct {
	*exec.Cmd
	// Outlive starts the command without the parent-death signal and the
	// watcher: it keeps running when troupe dies, for a later troupe to
	// adopt (a llama-server that took minutes to load). Its standard
	// streams must then be files, not pipes to troupe, which would break.
	Outlive bool
	// Marker, when set, is put in the command's environment as MarkerEnv:
	// record the command's Proof, and KillProven with the same marker can
	// later tell it from any other process (see proof.go).
	Marker string
	watch  watch
}

// Command returns a Cmd to run name with args, looked up as exec.Command
// does.
func Command(name string, arg ...string) *Cmd {
	return &Cmd{Cmd: exec.Command(name, arg...)}
}

// PGID is the started command's process group: on Linux its own pid, as
// the leader of a new session. Elsewhere it is the command's pid too, which
// leads no group there.
func (c *Cmd) PGID() int {
	if c.Process == nil {
		return 0
	}
	return c.Process.Pid
}

// markEnv adds the marker to the environment the command starts with; exec
// keeps the last of duplicate keys, so an inherited marker is replaced.
func (c *Cmd) markEnv() {
	if c.Marker == "" {
		return
	}
	env := c.Env
	if env == nil {
		env = os.Environ()
	}
	c.Env = append(env[:len(env):len(env)], MarkerEnv+"="+c.Marker)
}
