package agentjs

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// perms is the manifest's permissions with paths made absolute.
type perms struct {
	read, write []string // absolute, symlinks resolved where they exist
	hosts       []string
	commands    []string
}

func newPerms(cfg Config) (perms, error) {
	var p perms
	cwd := cfg.Cwd
	if cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return p, fmt.Errorf("working directory: %w", err)
		}
		cwd = wd
	}
	abs := func(list []string) []string {
		out := make([]string, 0, len(list))
		for _, s := range list {
			out = append(out, realPath(resolve(cwd, s)))
		}
		return out
	}
	p.write = abs(cfg.Permissions.Filesystem.Write)
	p.read = append(abs(cfg.Permissions.Filesystem.Read), p.write...)
	if cfg.Dir != "" {
		p.read = append(p.read, realPath(cfg.Dir))
	}
	p.hosts = cfg.Permissions.Network.Hosts
	p.commands = cfg.Permissions.Shell.Commands
	return p, nil
}

// resolve makes path absolute against base, expanding a leading ~.
func resolve(base, path string) string {
	if path == "~" || strings.HasPrefix(path, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			path = filepath.Join(home, strings.TrimPrefix(path, "~"))
		}
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(base, path)
	}
	return filepath.Clean(path)
}

// realPath resolves the symlinks of the longest part of path that exists,
// so a link inside an allowed folder cannot lead out of it.
func realPath(path string) string {
	rest := ""
	for p := path; ; p = filepath.Dir(p) {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(real, rest)
		}
		if filepath.Dir(p) == p {
			return path
		}
		rest = filepath.Join(filepath.Base(p), rest)
	}
}

func within(roots []string, path string) bool {
	for _, root := range roots {
		rel, err := filepath.Rel(root, path)
		if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// checkPath returns path made absolute and real, or the denial.
func (r *Runtime) checkPath(path string, write bool) (string, error) {
	real := realPath(resolve(r.cwd(), path))
	roots, kind := r.perms.read, "read"
	if write {
		roots, kind = r.perms.write, "write"
	}
	if !within(roots, real) {
		return "", fmt.Errorf("permission denied: fs %s of %s is outside permissions.filesystem.%s in agent.yaml", kind, path, kind)
	}
	return real, nil
}

func (r *Runtime) cwd() string {
	if r.cfg.Cwd != "" {
		return r.cfg.Cwd
	}
	wd, _ := os.Getwd()
	return wd
}

// checkHost refuses a URL whose host the manifest does not list.
func (r *Runtime) checkHost(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("bad url %q: want http(s)://host/...", raw)
	}
	if slices.Contains(r.perms.hosts, "*") || slices.Contains(r.perms.hosts, u.Host) || slices.Contains(r.perms.hosts, u.Hostname()) {
		return nil
	}
	return fmt.Errorf("permission denied: network access to %s is not in permissions.network.hosts in agent.yaml", u.Host)
}

// shellMeta is what only a shell understands; without "*" commands run
// without one, so these would be passed on literally or refused.
const shellMeta = "|&;<>()$`\\\"'*?[]#~{}\n"

// command returns the program and arguments to run for line, or the
// denial: any command through sh -c with "*", else a listed program run
// directly, its arguments split on spaces.
func (r *Runtime) command(line string) (string, []string, error) {
	if slices.Contains(r.perms.commands, "*") {
		return "/bin/sh", []string{"-c", line}, nil
	}
	fields := strings.Fields(line)
	if len(fields) == 0 {
		return "", nil, fmt.Errorf("run_command: empty command")
	}
	if len(r.perms.commands) == 0 {
		return "", nil, fmt.Errorf("permission denied: shell commands are not allowed (permissions.shell in agent.yaml)")
	}
	if !slices.Contains(r.perms.commands, fields[0]) {
		return "", nil, fmt.Errorf("permission denied: command %q is not in permissions.shell.commands in agent.yaml", fields[0])
	}
	if strings.ContainsAny(line, shellMeta) {
		return "", nil, fmt.Errorf("permission denied: shell syntax in %q needs permissions.shell.commands [\"*\"]", line)
	}
	return fields[0], fields[1:], nil
}
