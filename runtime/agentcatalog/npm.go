package agentcatalog

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// npmSpec is a package spec troupe hands npm: a registry package name
// with an optional version, range or tag — never an option, a URL, a path
// or a git remote (a registry's spec comes from the network).
var npmSpec = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(@[a-z0-9][a-z0-9._~-]*/)?[a-z0-9][a-z0-9._~-]*(@[A-Za-z0-9._~^<>=|*+ -]+)?$`)
})

// installNPM installs e's npm package with npm into its install
// directory and answers the bin to start.
//
// npm runs with --ignore-scripts: installing is copying files, and no
// package's install scripts (the agent's or any dependency's, which nobody
// chose) run as the daemon's user on a client's request; the agent's own
// code runs only when a session starts it. An agent that cannot work
// without its scripts is installed by hand and configured as a local
// agent. npm's cache is kept in the home (agents/.npm-cache), so troupe
// writes nothing outside it.
func (c *Catalog) installNPM(ctx context.Context, e entry, progress func(Progress)) (string, error) {
	n := e.dist.npx
	if !npmSpec().MatchString(n.Package) {
		return "", fmt.Errorf("npm package %q is not a registry package spec", n.Package)
	}
	dir := c.installDir(e)
	defer c.lockDir(dir).Unlock()
	if bin, ok := npmBin(dir, n); ok {
		return bin, nil
	}
	if _, err := exec.LookPath("npm"); err != nil {
		return "", errors.New("npm not found on PATH (install Node.js and npm, or use a binary or local agent)")
	}
	tmp, err := stage(dir)
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp) // a no-op once committed
	version := e.versionKey()
	progress(Progress{AgentID: e.id, Version: version, Source: "npm", Phase: "install_start", PackageSpec: n.Package})
	args := []string{"install", "--prefix", tmp, "--ignore-scripts", "--no-audit", "--no-fund", "--no-save", "--loglevel=error"}
	if c.cfg.npmRegistry != "" {
		args = append(args, "--registry", c.cfg.npmRegistry)
	}
	cmd := exec.CommandContext(ctx, "npm", append(args, "--", n.Package)...)
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "npm_config_cache="+filepath.Join(c.home, AgentsDir, ".npm-cache"),
		"npm_config_update_notifier=false")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("npm install %s: %w: %s", n.Package, err, tail(stderr.String(), 2048))
	}
	if err := commit(tmp, dir); err != nil {
		return "", err
	}
	bin, ok := npmBin(dir, n)
	if !ok {
		return "", fmt.Errorf("npm install %s gave no bin %q in %s", n.Package, binHint(n), filepath.Join(dir, "node_modules", ".bin"))
	}
	progress(Progress{AgentID: e.id, Version: version, Source: "npm", Phase: "installed"})
	return bin, nil
}

// binHint is the bin the distribution names, else the package's base name.
func binHint(n *npxDist) string {
	if n.Bin != "" {
		return n.Bin
	}
	return packageBase(n.Package)
}

// npmBin finds the installed package's bin in dir: the hint, else the
// package.json's only bin, else its base name.
func npmBin(dir string, n *npxDist) (string, bool) {
	bins := filepath.Join(dir, "node_modules", ".bin")
	candidates := []string{binHint(n)}
	pkg := packageName(n.Package)
	if b, err := os.ReadFile(filepath.Join(dir, "node_modules", filepath.FromSlash(pkg), "package.json")); err == nil {
		var p struct {
			Bin json.RawMessage `json:"bin"`
		}
		var m map[string]string
		if json.Unmarshal(b, &p) == nil && json.Unmarshal(p.Bin, &m) == nil && len(m) == 1 {
			for k := range m {
				candidates = append(candidates, k)
			}
		}
	}
	candidates = append(candidates, packageBase(n.Package))
	for _, name := range candidates {
		if name == "" || strings.ContainsAny(name, `/\`) || name == "." || name == ".." {
			continue
		}
		p := filepath.Join(bins, name)
		if exists(p) {
			return p, true
		}
	}
	return "", false
}

func tail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}
