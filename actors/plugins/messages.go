package plugins

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// Kinds of process.
const (
	KindExtension   = "extension"
	KindTransformer = "transformer"
)

// Status of a process, as the protocol names them.
const (
	StatusRunning  = "running"
	StatusStarting = "starting"
	StatusStopped  = "stopped"
	StatusCrashed  = "crashed"
)

// Errors a request is answered with; the REST API maps them to 400, 404
// and 409.
var (
	ErrInvalid  = errors.New("invalid")
	ErrNotFound = errors.New("not found")
	ErrConflict = errors.New("conflict")
)

// Spec is a process as registered (config.yml or POST).
type Spec struct {
	Name    string            `json:"name" yaml:"name"`
	Command []string          `json:"command" yaml:"command"`
	Args    []string          `json:"args" yaml:"args"`
	Env     map[string]string `json:"env" yaml:"env"`
	Enabled *bool             `json:"enabled,omitempty" yaml:"enabled"`
}

var nameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9._-]+$`) })

// ValidName checks a process name: the spec's [A-Za-z0-9._-]+, and not
// made of dots alone. "." and ".." match the pattern but are no path
// segment: /v1/extensions/.. is cleaned to another route before it is
// served, so such a process could be neither read, stopped nor deleted.
func ValidName(name string) error {
	if !nameRE().MatchString(name) {
		return refuse(ErrInvalid, "name must match [A-Za-z0-9._-]+")
	}
	if strings.Trim(name, ".") == "" {
		return refuse(ErrInvalid, "name "+strconv.Quote(name)+" is dots alone: it is no path segment")
	}
	return nil
}

// Validate checks the name and fills the defaults: command [name],
// enabled true.
func (s *Spec) Validate() error {
	if err := ValidName(s.Name); err != nil {
		return err
	}
	if len(s.Command) == 0 {
		s.Command = []string{s.Name}
	}
	if s.Command[0] == "" {
		return refuse(ErrInvalid, "command must name a program")
	}
	if s.Args == nil {
		s.Args = []string{}
	}
	if s.Env == nil {
		s.Env = map[string]string{}
	}
	if s.Enabled == nil {
		t := true
		s.Enabled = &t
	}
	return nil
}

// Info is a process as it is now: the protocol's extension entry.
type Info struct {
	Name    string            `json:"name"`
	Command []string          `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	Enabled bool              `json:"enabled"`
	PID     int               `json:"pid,omitempty"`
	Status  string            `json:"status"`
	Version string            `json:"version,omitempty"`
	// RestartCount is how many times it was started again after exiting
	// on its own (Hydra's clients read restartCount; the reference names
	// no count).
	RestartCount int `json:"restartCount"`
	// StartedAt is when the current run started, in Unix milliseconds;
	// null while none runs.
	StartedAt *int64 `json:"startedAt"`
	// LastExitCode is how the last run ended on its own (-1: a signal or
	// no start); null before any did.
	LastExitCode *int `json:"lastExitCode"`
	// LogPath is the file its runs' stdout and stderr are appended to
	// (Options.LogDir); "" when output goes to the daemon's log only.
	LogPath string `json:"logPath"`
}

// Register adds a process and starts it when enabled; answered *Reply.
type Register struct{ Spec Spec }

// Delete stops a process and forgets it; answered *Reply.
type Delete struct{ Name string }

// Control is start, stop or restart; answered *Reply.
type Control struct {
	Name string
	Op   string // start | stop | restart
}

// Get asks for one process; answered *Reply.
type Get struct{ Name string }

// List asks for every process, by name; answered *Listed.
type List struct{}

// Reply answers Register, Delete, Control and Get.
type Reply struct {
	Info Info
	Err  error
}

// Listed answers List.
type Listed struct{ Infos []Info }

// reqError is a refusal: its message for the caller, its class for errors.Is.
type reqError struct {
	class error
	msg   string
}

func (e *reqError) Error() string { return e.msg }
func (e *reqError) Unwrap() error { return e.class }

func refuse(class error, msg string) error { return &reqError{class: class, msg: msg} }
