package tools

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestWithin(t *testing.T) {
	cwd, extra, outside := t.TempDir(), t.TempDir(), t.TempDir()
	if err := os.Symlink(outside, filepath.Join(cwd, "escape")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "new.txt"), filepath.Join(cwd, "dangling")); err != nil {
		t.Fatal(err)
	}
	call := Call{Cwd: cwd, AllowedDirs: []string{extra}}
	cases := []struct {
		path string
		want bool
	}{
		{"a.txt", true},
		{"not/yet/created.txt", true},
		{filepath.Join(cwd, "x"), true},
		{".", true},
		{filepath.Join(extra, "y"), true},
		{"../" + filepath.Base(outside) + "/z", false},
		{filepath.Join(outside, "z"), false},
		{"escape/z", false},
		{"dangling", false},
		{cwd + "-sibling/z", false},
	}
	for _, c := range cases {
		if got := Within(call, c.path); got != c.want {
			t.Errorf("Within(%q) = %v, want %v", c.path, got, c.want)
		}
	}
	if Within(Call{}, "/x") {
		t.Error("a call without cwd must allow nothing")
	}
}

func TestTouchesAndOutsideAllowed(t *testing.T) {
	cwd, outside := t.TempDir(), t.TempDir()
	inPath, outPath := filepath.Join(cwd, "in.txt"), filepath.Join(outside, "out.txt")

	write := callIn(t, cwd, map[string]any{"path": "in.txt", "content": "x"})
	if got := Touches(Write{}, write); !slices.Equal(got, []string{inPath}) {
		t.Fatalf("Touches(write) = %v", got)
	}
	if got := OutsideAllowed(Write{}, write); got != nil {
		t.Fatalf("OutsideAllowed(write inside) = %v", got)
	}

	edit := callIn(t, cwd, map[string]any{"file_path": outPath, "old_string": "a", "new_string": "b"})
	if got := OutsideAllowed(Edit{}, edit); !slices.Equal(got, []string{outPath}) {
		t.Fatalf("OutsideAllowed(edit outside) = %v", got)
	}
	edit.AllowedDirs = []string{outside}
	if got := OutsideAllowed(Edit{}, edit); got != nil {
		t.Fatalf("OutsideAllowed(edit in allowed dir) = %v", got)
	}

	for _, tool := range []Tool{Read{}, Bash{}, Glob{}, Grep{}, Ls{}} {
		if got := Touches(tool, callIn(t, cwd, map[string]any{"path": outPath, "command": "rm x"})); got != nil {
			t.Errorf("Touches(%s) = %v, want nil", tool.Name(), got)
		}
	}
	if got := Touches(Write{}, callIn(t, cwd, map[string]any{"content": "x"})); got != nil {
		t.Errorf("Touches without a path = %v, want nil", got)
	}
}
