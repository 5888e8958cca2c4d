package agentcatalog

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sync"
)

// Install states, Hydra's words.
const (
	stateYes  = "yes"
	stateNo   = "no"
	stateLazy = "lazy"
)

// AgentsDir is where installed agents live in the home:
// agents/<id>/<version>/.
const AgentsDir = "agents"

// InstallProgressMethod is the ACP notification a Progress is sent as.
const InstallProgressMethod = "hydra-acp/agents/install_progress"

// Progress is one step of an install, the params of Hydra's
// hydra-acp/agents/install_progress notification. Source is "binary" or
// "npm"; Phase is download_start, download_progress, download_done,
// extract (binary), install_start (npm) or installed.
type Progress struct {
	AgentID       string `json:"agentId"`
	Version       string `json:"version"`
	Source        string `json:"source"`
	Phase         string `json:"phase"`
	ReceivedBytes *int64 `json:"receivedBytes,omitempty"`
	TotalBytes    *int64 `json:"totalBytes,omitempty"`
	PackageSpec   string `json:"packageSpec,omitempty"`
}

// Installed is what Install did, in the shape of Hydra's
// POST /v1/agents/:id/install answer.
type Installed struct {
	AgentID      string `json:"agentId"`
	Version      string `json:"version"`
	Distribution string `json:"distribution"`
	Installed    bool   `json:"installed"`
	Command      string `json:"command,omitempty"`
	Message      string `json:"message,omitempty"`
}

// Install installs agent id so Lookup can start it: an npx agent with npm
// into agents/<id>/<version>, a binary agent's archive for this platform
// (its sha256 checked before anything is extracted). A uvx agent has
// nothing to install (uvx resolves it as it starts), a configured command
// neither. progress, when set, hears each step; an agent already installed
// is answered at once.
func (c *Catalog) Install(ctx context.Context, id string, progress func(Progress)) (Installed, error) {
	e, err := c.resolve(id)
	if err != nil {
		return Installed{}, err
	}
	if progress == nil {
		progress = func(Progress) {}
	}
	version := e.versionKey()
	res := Installed{AgentID: e.id, Version: version}
	switch {
	case e.dist.npx != nil:
		res.Distribution = "npx"
		res.Command, err = c.installNPM(ctx, e, progress)
	case e.dist.binary != nil:
		res.Distribution = "binary"
		res.Command, err = c.installBinary(ctx, e, progress)
	case e.dist.uvx != nil:
		res.Distribution, res.Message = "uvx", "uvx agents resolve on first run; nothing to pre-install."
		return res, nil
	case e.dist.exec != nil:
		res.Distribution, res.Installed, res.Command = "exec", true, e.dist.exec.command
		return res, nil
	default:
		return res, fmt.Errorf("%w: %s has no distribution troupe can use", ErrNotInstalled, e.id)
	}
	if err != nil {
		return res, fmt.Errorf("install %s: %w", e.id, err)
	}
	res.Installed = true
	return res, nil
}

// launch is how e starts now, and its install state.
func (c *Catalog) launch(e entry) (Launch, string) {
	switch {
	case e.dist.npx != nil:
		bin, ok := npmBin(c.installDir(e), e.dist.npx)
		if !ok {
			return Launch{}, stateNo
		}
		return Launch{Command: bin, Args: e.dist.npx.Args, Env: e.dist.npx.Env}, stateYes
	case e.dist.binary != nil:
		t := e.dist.binary[PlatformKey()]
		if t == nil || !validCmd(t.Cmd) {
			return Launch{}, stateNo
		}
		cmd := filepath.Join(c.installDir(e), filepath.FromSlash(t.Cmd))
		if st, err := os.Stat(cmd); err != nil || !st.Mode().IsRegular() {
			return Launch{}, stateNo
		}
		return Launch{Command: cmd, Args: t.Args, Env: t.Env}, stateYes
	case e.dist.uvx != nil:
		if !uvxPackage().MatchString(e.dist.uvx.Package) {
			return Launch{}, stateNo
		}
		return Launch{Command: "uvx", Args: append([]string{e.dist.uvx.Package}, e.dist.uvx.Args...), Env: e.dist.uvx.Env}, stateLazy
	case e.dist.exec != nil:
		return Launch{Command: e.dist.exec.command, Args: e.dist.exec.args, Env: e.dist.exec.env}, stateYes
	}
	return Launch{}, stateNo
}

// uvxPackage is a package uvx may be given: a name with an optional
// version or extras, never an option (a registry's comes from the
// network).
var uvxPackage = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._\-\[\],=<>~!@+]*$`) })

// versionKey is e's version as a directory name.
func (e entry) versionKey() string {
	v := e.version
	if v == "" {
		v = "current"
	}
	v = unsafeChars().ReplaceAllString(v, "_")
	if v == "." || v == ".." {
		return "current"
	}
	return v
}

// installDir is where e is (or would be) installed.
func (c *Catalog) installDir(e entry) string {
	return filepath.Join(c.home, AgentsDir, e.installID, e.versionKey())
}

// lockDir serialises installs into one directory; the caller unlocks.
func (c *Catalog) lockDir(dir string) *sync.Mutex {
	c.installs.Lock()
	m := c.busy[dir]
	if m == nil {
		m = &sync.Mutex{}
		c.busy[dir] = m
	}
	c.installs.Unlock()
	m.Lock()
	return m
}

// stage makes a fresh directory beside dir to install into; commit
// renames it into place (another install that got there first wins).
func stage(dir string) (string, error) {
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", err
	}
	return os.MkdirTemp(filepath.Dir(dir), filepath.Base(dir)+".partial-")
}

func commit(tmp, dir string) error {
	err := os.Rename(tmp, dir)
	if err == nil {
		return nil
	}
	if _, serr := os.Stat(dir); serr == nil {
		return os.RemoveAll(tmp)
	}
	return err
}

// PlatformKey is this machine's key in a binary distribution
// (linux-x86_64, darwin-aarch64, …); "" on one the registry has no key for.
func PlatformKey() string {
	osPart := map[string]string{"linux": "linux", "darwin": "darwin", "windows": "windows"}[runtime.GOOS]
	arch := map[string]string{"amd64": "x86_64", "arm64": "aarch64"}[runtime.GOARCH]
	if osPart == "" || arch == "" {
		return ""
	}
	return osPart + "-" + arch
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return !errors.Is(err, fs.ErrNotExist)
}
