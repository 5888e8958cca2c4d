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
