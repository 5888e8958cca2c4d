// Package workdir owns the one check every door applies to a directory a
// client names for a session: its cwd (ACP session/new and fork,
// hydra-acp/child_session/spawn, REST create and fork, the MCP server's
// create, a bundle's import) and its additional directories. A session's
// tools run there and its file tools are confined to them, so a file, a
// relative path, a path that does not exist or one with a NUL byte is
// refused before any session is made.
//
// The check: absolute, cleaned, an existing directory, no NUL; a bundle's
// directory (Untrusted) is also never the root.
package workdir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ErrInvalid matches every refusal (errors.Is); the refusal's text names
// the path and why, worded for the client.
var ErrInvalid = errors.New("invalid directory")

type refusal struct{ msg string }

func (r *refusal) Error() string        { return r.msg }
func (r *refusal) Is(target error) bool { return target == ErrInvalid }

func refuse(format string, args ...any) error { return &refusal{fmt.Sprintf(format, args...)} }

// Check is dir cleaned (lexically), or a refusal (ErrInvalid) unless dir is an
// absolute path naming an existing directory (symlinks followed). What
// names dir ("cwd", "additionalDirectories[1]") leads the error.
func Check(what, dir string) (string, error) {
	switch {
	case dir == "":
		return "", refuse("%s is empty", what)
	case strings.IndexByte(dir, 0) >= 0:
		return "", refuse("%s %q contains a NUL byte", what, dir)
	case !filepath.IsAbs(dir):
		return "", refuse("%s %q is not an absolute path", what, dir)
	}
	// The path checked is the one recorded: cleaned first.
	dir = filepath.Clean(dir)
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "", refuse("%s %q does not exist", what, dir)
	case err != nil:
		return "", refuse("%s %q cannot be read: %v", what, dir, errors.Unwrap(err))
	case !fi.IsDir():
		return "", refuse("%s %q is not a directory", what, dir)
	}
	return dir, nil
}

// Cwd is Check of a session's cwd.
func Cwd(dir string) (string, error) { return Check("cwd", dir) }

// Dirs is Check of each of a session's additional directories, named
// field[i] in an error; nil stays nil.
func Dirs(field string, dirs []string) ([]string, error) {
	if dirs == nil {
		return nil, nil
	}
	out := make([]string, len(dirs))
	for i, d := range dirs {
		c, err := Check(fmt.Sprintf("%s[%d]", field, i), d)
		if err != nil {
			return nil, err
		}
		out[i] = c
	}
	return out, nil
}

// Untrusted is Check of a directory that came from no client but a
// bundle, which also may not be the root, symlinks resolved: a session
// whose directory is the root has every file "inside" it, and a bundle is
// nobody's choice here. Nothing is expanded: "~" is not absolute.
func Untrusted(what, dir string) (string, error) {
	clean, err := Check(what, dir)
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(clean); err != nil || real == "/" {
		return "", refuse("%s %q is the root directory", what, dir)
	}
	return clean, nil
}
