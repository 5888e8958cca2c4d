//go:build !linux

package proc

// watch has nothing to hold off Linux: there is no watcher.
type watch struct{}

// Start starts the command as exec does: off Linux there is no new
// session, parent-death signal or watcher, so what the command starts may
// outlive troupe.
func (c *Cmd) Start() error {
	c.markEnv()
	return c.Cmd.Start()
}

// Release does nothing off Linux; see Start.
func (c *Cmd) Release() {}
