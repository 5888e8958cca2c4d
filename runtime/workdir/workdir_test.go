package workdir

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := Cwd(dir + "/./"); err != nil || got != dir {
		t.Fatalf("a directory: %q %v", got, err)
	}
	for bad, says := range map[string]string{
		"":                      "is empty",
		"rel/dir":               "not an absolute path",
		file:                    "not a directory",
		filepath.Join(dir, "n"): "does not exist",
		dir + "\x00":            "NUL",
	} {
		_, err := Cwd(bad)
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), says) || !strings.HasPrefix(err.Error(), "cwd ") {
			t.Fatalf("Cwd(%q): %v, want %q", bad, err, says)
		}
	}
	if _, err := Dirs("additionalDirectories", []string{dir, file}); err == nil || !strings.Contains(err.Error(), "additionalDirectories[1]") {
		t.Fatalf("Dirs: %v", err)
	}
	if got, err := Dirs("d", nil); got != nil || err != nil {
		t.Fatalf("Dirs(nil): %v %v", got, err)
	}
}

// A bundle's directory may not be the root, however it is spelled.
func TestUntrusted(t *testing.T) {
	dir := t.TempDir()
	if got, err := Untrusted("cwd", dir); err != nil || got != dir {
		t.Fatalf("a directory: %q %v", got, err)
	}
	root := filepath.Join(dir, "root")
	if err := os.Symlink("/", root); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"/", "/.", "/tmp/..", root} {
		if _, err := Untrusted("cwd", bad); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "root directory") {
			t.Fatalf("Untrusted(%q): %v, want the root refused", bad, err)
		}
	}
	if _, err := Untrusted("cwd", "rel"); !errors.Is(err, ErrInvalid) {
		t.Fatalf("Untrusted(rel): %v", err)
	}
}
