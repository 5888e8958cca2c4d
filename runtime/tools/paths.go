package tools

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// errNoCwd is an infrastructure failure: the caller built a Call without a
// working directory, which no argument from the model can fix.
var errNoCwd = errors.New("call has no working directory")

// workdir returns the call's cwd as a clean absolute path.
func (c Call) workdir() (string, error) {
	if c.Cwd == "" {
		return "", errNoCwd
	}
	abs, err := filepath.Abs(c.Cwd)
	if err != nil {
		return "", err
	}
	return abs, nil
}

// resolvePath makes p absolute against cwd. A leading "~/" means the home
// directory, because models write paths the way a user would type them.
func resolvePath(cwd, p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, strings.TrimPrefix(p, "~"))
		}
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(cwd, p)
}

// displayPath is how a path is shown to the model: relative to cwd when it
// is inside it (shorter, and valid input to the other tools), else absolute.
func displayPath(cwd, abs string) string {
	if !isUnder(abs, cwd) {
		return abs
	}
	rel, err := filepath.Rel(cwd, abs)
	if err != nil {
		return abs
	}
	return rel
}

func isUnder(p, root string) bool {
	rel, err := filepath.Rel(root, p)
	if err != nil || filepath.IsAbs(rel) {
		return false
	}
	return rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// Within reports whether path (absolute, or relative to call.Cwd) lies
// inside call.Cwd or one of call.AllowedDirs. Symbolic links are followed,
// also for paths that do not exist yet, so a link inside cwd pointing
// elsewhere does not count as inside.
func Within(call Call, path string) bool {
	if call.Cwd == "" {
		return false
	}
	cwd, err := call.workdir()
	if err != nil {
		return false
	}
	p := realPath(resolvePath(cwd, path))
	for _, root := range append([]string{cwd}, call.AllowedDirs...) {
		if root == "" {
			continue
		}
		if isUnder(p, realPath(resolvePath(cwd, root))) {
			return true
		}
	}
	return false
}

// Touches returns the absolute paths t would write when running call, or
// nil when t writes no files it can name in advance (bash among them:
// approval for exec tools is decided by category, not by path).
func Touches(t Tool, call Call) []string {
	w, ok := t.(Toucher)
	if !ok {
		return nil
	}
	return w.Touches(call)
}

// OutsideAllowed returns the paths t would write when running call that lie
// outside call.Cwd and call.AllowedDirs: the ones that need approval.
func OutsideAllowed(t Tool, call Call) []string {
	var out []string
	for _, p := range Touches(t, call) {
		if !Within(call, p) {
			out = append(out, p)
		}
	}
	return out
}

// realPath resolves symbolic links in p, including a dangling final link and
// components that do not exist yet.
func realPath(p string) string {
	rest := ""
	for range 64 { // bounds symlink loops
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(r, rest)
		}
		if fi, err := os.Lstat(p); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			if target, err := os.Readlink(p); err == nil {
				if !filepath.IsAbs(target) {
					target = filepath.Join(filepath.Dir(p), target)
				}
				p = filepath.Clean(target)
				continue
			}
		}
		parent := filepath.Dir(p)
		if parent == p {
			return filepath.Join(p, rest)
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
	return filepath.Join(p, rest)
}

// touchedPath is the Touches implementation shared by write and edit.
func touchedPath(tool string, call Call) []string {
	var args pathArg
	if _, ok := decodeArgs(tool, call.Args, &args); !ok || args.path() == "" {
		return nil
	}
	cwd, err := call.workdir()
	if err != nil {
		return nil
	}
	return []string{resolvePath(cwd, args.path())}
}
