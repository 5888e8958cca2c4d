package tools

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWriteCreatesParents(t *testing.T) {
	dir := t.TempDir()
	res := run(t, Write{}, callIn(t, dir, map[string]any{"path": "a/b/c.txt", "content": "hello\n"}))
	requireOK(t, res)
	want := filepath.Join(dir, "a", "b", "c.txt")
	requireEqual(t, mustRead(t, want), "hello\n")
	requireEqual(t, res.Output, "Wrote 6 bytes to a/b/c.txt")
	requireEqual(t, res.Metadata[MetaFilePath].(string), want)
}

func TestWriteOverwriteKeepsMode(t *testing.T) {
	dir := t.TempDir()
	p := mustWrite(t, dir, "run.sh", "old")
	if err := os.Chmod(p, 0o755); err != nil {
		t.Fatal(err)
	}
	requireOK(t, run(t, Write{}, callIn(t, dir, map[string]any{"path": "run.sh", "content": "new"})))
	requireEqual(t, mustRead(t, p), "new")
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	requireEqual(t, fi.Mode().Perm(), os.FileMode(0o755))
}

func TestWriteEmptyContentIsAllowed(t *testing.T) {
	dir := t.TempDir()
	requireOK(t, run(t, Write{}, callIn(t, dir, map[string]any{"path": "empty", "content": ""})))
	requireEqual(t, mustRead(t, filepath.Join(dir, "empty")), "")
}

func TestWriteErrors(t *testing.T) {
	dir := t.TempDir()
	mustWrite(t, dir, "sub/x", "")
	mustWrite(t, dir, "file", "")
	requireError(t, run(t, Write{}, callIn(t, dir, map[string]any{"path": "sub", "content": "x"})), "is a directory")
	requireError(t, run(t, Write{}, callIn(t, dir, map[string]any{"path": "file/child", "content": "x"})), "write:")
	requireError(t, run(t, Write{}, callIn(t, dir, map[string]any{"content": "x"})), `"path"`)
	requireError(t, run(t, Write{}, callIn(t, dir, map[string]any{"path": "y", "content": 3})), `"content"`, "string")
}
