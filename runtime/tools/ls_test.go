package tools

import (
	"os"
	"path/filepath"
	"testing"
)

func TestLs(t *testing.T) {
	dir := t.TempDir()
	mustWrite(t, dir, "b.txt", "")
	mustWrite(t, dir, ".hidden", "")
	mustWrite(t, dir, "sub/x", "")
	if err := os.Symlink(filepath.Join(dir, "sub"), filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	res := run(t, Ls{}, callIn(t, dir, map[string]any{}))
	requireOK(t, res)
	requireEqual(t, res.Output, ".hidden\nb.txt\nlink/\nsub/")

	res = run(t, Ls{}, callIn(t, dir, map[string]any{"path": "sub"}))
	requireOK(t, res)
	requireEqual(t, res.Output, "x")
}

func TestLsEmptyAndErrors(t *testing.T) {
	dir := t.TempDir()
	mustWrite(t, dir, "f", "")
	if err := os.Mkdir(filepath.Join(dir, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	res := run(t, Ls{}, callIn(t, dir, map[string]any{"path": "empty"}))
	requireOK(t, res)
	requireEqual(t, res.Output, "[empty is empty]")
	requireError(t, run(t, Ls{}, callIn(t, dir, map[string]any{"path": "f"})), "is not a directory")
	requireError(t, run(t, Ls{}, callIn(t, dir, map[string]any{"path": "nope"})), "directory not found")
}
