package agentpkg

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/samber/lo"
	"gopkg.in/yaml.v3"
)

// ManifestFile is the manifest's name inside a package.
const ManifestFile = "agent.yaml"

// RuntimeVersion is the version of the agent runtime troupe provides, what
// a manifest's runtime is checked against and hugind_version() returns.
const RuntimeVersion = "1.0.0"

// DefaultMaxTurns applies when neither the manifest nor the script says.
const DefaultMaxTurns = 10

// Modes.
const (
	ModeAgentic = "agentic"
	ModeScript  = "script"
)

// Session modes of the backend.
const (
	SessionStateless = "stateless"
	SessionFresh     = "fresh"
	SessionResume    = "resume"
)

// Manifest is one agent.yaml.
type Manifest struct {
	Name        string            `yaml:"name"`
	Version     string            `yaml:"version"`
	Runtime     string            `yaml:"runtime"`
	Entry       string            `yaml:"entry"`
	Mode        string            `yaml:"mode"`
	MaxTurns    int               `yaml:"max_turns"`
	Backend     Backend           `yaml:"backend"`
	Permissions Permissions       `yaml:"permissions"`
	MCP         []MCPServer       `yaml:"mcp"`
	Env         map[string]string `yaml:"env"`
}

// Backend is where the model is: a URL, or a llama-server config's name.
type Backend struct {
	URL     string `yaml:"url"`
	Config  string `yaml:"config"`
	Model   string `yaml:"model"`
	Session string `yaml:"session"`
	APIKey  string `yaml:"api_key"`
}

// Permissions are the capabilities the JavaScript may use; none by default.
type Permissions struct {
	Network    Network    `yaml:"network"`
	Filesystem Filesystem `yaml:"filesystem"`
	Shell      Shell      `yaml:"shell"`
}

// Network lists the hosts fetch may reach ("*": any).
type Network struct {
	Hosts []string `yaml:"hosts"`
}

// Filesystem lists the paths fs may read and write, files or folders.
type Filesystem struct {
	Read  []string `yaml:"read"`
	Write []string `yaml:"write"`
}

// Shell lists the programs run_command may start ("*": any).
type Shell struct {
	Commands []string `yaml:"commands"`
}

// MCPServer is an MCP server the agent depends on.
type MCPServer struct {
	Name    string   `yaml:"name"`
	Command string   `yaml:"command"`
	Args    []string `yaml:"args"`
	URL     string   `yaml:"url"`
}

// Any reports whether the manifest asks for any capability, which
// installing must then approve.
func (p Permissions) Any() bool {
	return len(p.Network.Hosts) > 0 || len(p.Filesystem.Read) > 0 || len(p.Filesystem.Write) > 0 || len(p.Shell.Commands) > 0
}

// Summary names what is asked for, for the refusal.
func (p Permissions) Summary() string {
	var parts []string
	if len(p.Network.Hosts) > 0 {
		parts = append(parts, "network "+strings.Join(p.Network.Hosts, ","))
	}
	if len(p.Filesystem.Read) > 0 {
		parts = append(parts, "filesystem read "+strings.Join(p.Filesystem.Read, ","))
	}
	if len(p.Filesystem.Write) > 0 {
		parts = append(parts, "filesystem write "+strings.Join(p.Filesystem.Write, ","))
	}
	if len(p.Shell.Commands) > 0 {
		parts = append(parts, "shell "+strings.Join(p.Shell.Commands, ","))
	}
	return strings.Join(parts, "; ")
}

// Asks reports whether installing needs approve_permissions, and what for:
// any permission, or an MCP server (a program or a service it runs).
func (m Manifest) Asks() (bool, string) {
	summary := m.Permissions.Summary()
	if len(m.MCP) > 0 {
		names := lo.Map(m.MCP, func(s MCPServer, _ int) string { return s.Name })
		if summary != "" {
			summary += "; "
		}
		summary += "mcp servers " + strings.Join(names, ",")
	}
	return summary != "", summary
}

var namePattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`) })

// Parse reads and validates a manifest, filling in the defaults. Unknown
// keys are errors, so a misspelt permission is not silently no permission.
func Parse(data []byte) (Manifest, error) {
	var m Manifest
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&m); err != nil {
		return Manifest{}, fmt.Errorf("agent.yaml: %w", err)
	}
	if m.Entry == "" {
		m.Entry = "main.js"
	}
	if m.Mode == "" {
		m.Mode = ModeAgentic
	}
	if m.Backend.Session == "" {
		m.Backend.Session = SessionStateless
	}
	if err := m.validate(); err != nil {
		return Manifest{}, fmt.Errorf("agent.yaml: %w", err)
	}
	return m, nil
}

// Load reads dir's manifest.
func Load(dir string) (Manifest, error) {
	data, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if err != nil {
		return Manifest{}, fmt.Errorf("read agent: %w", err)
	}
	return Parse(data)
}

func (m Manifest) validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	switch {
	case m.Name == "":
		bad("name is required")
	case !namePattern().MatchString(m.Name):
		bad("name %q: letters, digits, '.', '_' and '-' only", m.Name)
	}
	if m.Runtime != "" {
		if err := checkRuntime(m.Runtime); err != nil {
			bad("runtime: %v", err)
		}
	}
	if filepath.IsAbs(m.Entry) || strings.HasPrefix(filepath.Clean(m.Entry), "..") {
		bad("entry %q must be a path inside the package", m.Entry)
	}
	if m.Mode != ModeAgentic && m.Mode != ModeScript {
		bad("mode must be agentic or script, not %q", m.Mode)
	}
	if m.MaxTurns < 0 {
		bad("max_turns must not be negative, not %d", m.MaxTurns)
	}
	switch s := m.Backend.Session; s {
	case SessionStateless, SessionFresh, SessionResume:
	default:
		bad("backend.session must be stateless, fresh or resume, not %q", s)
	}
	if m.Backend.URL != "" && m.Backend.Config != "" {
		bad("backend: url and config exclude each other")
	}
	// A URL may come from the environment (${VAR}), checked once expanded.
	if u := m.Backend.URL; u != "" && !strings.Contains(u, "$") && !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
		bad("backend.url %q must be http(s)", u)
	}
	for i, s := range m.MCP {
		if s.Name == "" {
			bad("mcp[%d].name is required", i)
		}
		if (s.Command == "") == (s.URL == "") {
			bad("mcp[%d]: one of command and url is required", i)
		}
	}
	return errors.Join(errs...)
}

// checkRuntime accepts "N", "N.M" or ">=N.M" that RuntimeVersion meets.
func checkRuntime(want string) error {
	at := strings.TrimSpace(want)
	atLeast := strings.HasPrefix(at, ">=")
	at = strings.TrimSpace(strings.TrimPrefix(at, ">="))
	wv, err := parseVersion(at)
	if err != nil {
		return fmt.Errorf("%q: want N, N.M or >=N.M", want)
	}
	have, _ := parseVersion(RuntimeVersion)
	// ">=N.M": at least; "N" or "N.M": the same major, at least that minor.
	ok := have[0] > wv[0] && atLeast || have[0] == wv[0] && have[1] >= wv[1]
	if !ok {
		return fmt.Errorf("%q is not met by troupe's agent runtime %s", want, RuntimeVersion)
	}
	return nil
}

func parseVersion(s string) ([2]int, error) {
	var v [2]int
	parts := strings.SplitN(s, ".", 3)
	for i := 0; i < len(parts) && i < 2; i++ {
		n, err := strconv.Atoi(parts[i])
		if err != nil || n < 0 {
			return v, fmt.Errorf("bad version %q", s)
		}
		v[i] = n
	}
	return v, nil
}
