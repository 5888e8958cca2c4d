package servers

import (
	"time"

	"github.com/troupehq/troupe/persistence"
	"github.com/troupehq/troupe/runtime/llamaconfig"
)

// Status of a server.
const (
	StatusStarting   = "starting"   // the program is being started
	StatusLoading    = "loading"    // it runs; /health is not 200 yet
	StatusStarted    = "started"    // /health answered 200
	StatusRestarting = "restarting" // it died on its own; a restart is due
	StatusStopping   = "stopping"   // SIGTERM sent
	StatusStopped    = "stopped"
	StatusFailed     = "failed" // it could not be started at all
	// StatusStopTimeout ends a stop that needed SIGKILL.
	StatusStopTimeout = "stop_timeout"
	// StatusAlreadyStopped answers a Stop of a server that was not running.
	StatusAlreadyStopped = "already_stopped"
)

// Start asks for config Name's server; the answer (*Started) comes once its
// /health answers 200, or with Err when it cannot start. A server already
// started answers at once.
type Start struct {
	Name   string
	Config llamaconfig.Config
	// Port overrides the config's port; 0 keeps it (and 0 in both picks a
	// free port).
	Port int
}

// Adopt asks the supervisor to own again a server a troupe that died left
// running (one Reclaim returned). It answers nothing: the server reports
// "loading", then "started" once /health answers, as a start does.
type Adopt struct {
	Config llamaconfig.Config
	Record persistence.ServerRecord
}

// Started answers Start.
type Started struct {
	Info Info
	Err  error
}

// Stop asks config Name's server to end; the answer is *Stopped.
type Stop struct {
	Name  string
	Grace time.Duration // before SIGKILL; 0 means Options.StopGrace
}

// Stopped answers Stop: StatusStopped, StatusStopTimeout or
// StatusAlreadyStopped.
type Stopped struct {
	Name   string
	Status string
}

// List asks for every server the supervisor knows; the answer is *Listed.
type List struct{}

// Listed answers List, by name.
type Listed struct{ Servers []Info }

// Info is a server as it is now.
type Info struct {
	Name     string `json:"name"`
	Host     string `json:"host"`
	Port     int    `json:"port"`
	PID      int    `json:"pid,omitempty"`
	Status   string `json:"status"`
	Restarts int    `json:"restarts"`
}

// Event is one status change, for Options.OnEvent.
type Event struct {
	Info
	// Delay is the backoff before a restart (StatusRestarting).
	Delay time.Duration
	// Exit says how the program ended (StatusRestarting, StatusStopped…).
	Exit string
}
