package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// callIn builds a Call in dir; args is marshalled unless it is already a
// json.RawMessage.
func callIn(t *testing.T, dir string, args any) Call {
	t.Helper()
	raw, ok := args.(json.RawMessage)
	if !ok {
		b, err := json.Marshal(args)
		if err != nil {
			t.Fatalf("marshal args: %v", err)
		}
		raw = b
	}
	return Call{Cwd: dir, Args: raw, SpillDir: filepath.Join(dir, ".spill")}
}

// run runs tool and fails the test on an infrastructure error.
func run(t *testing.T, tool Tool, call Call) Result {
	t.Helper()
	res, err := tool.Run(context.Background(), call, nil)
	if err != nil {
		t.Fatalf("%s: unexpected Go error: %v", tool.Name(), err)
	}
	return res
}

func mustWrite(t *testing.T, dir, rel, content string) string {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func mustRead(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func requireOK(t *testing.T, res Result) {
	t.Helper()
	if res.IsError {
		t.Fatalf("unexpected error result: %s", abbreviate(res.Output))
	}
}

// requireError asserts an error result whose output mentions every want.
func requireError(t *testing.T, res Result, want ...string) {
	t.Helper()
	if !res.IsError {
		t.Fatalf("expected an error result, got: %s", abbreviate(res.Output))
	}
	requireContains(t, res.Output, want...)
}

func requireContains(t *testing.T, s string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(s, w) {
			t.Fatalf("output does not contain %q:\n%s", w, abbreviate(s))
		}
	}
}

func requireEqual[T comparable](t *testing.T, got, want T) {
	t.Helper()
	if got != want {
		t.Fatalf("got %v, want %v", got, want)
	}
}

// abbreviate keeps failure messages readable when outputs are large.
func abbreviate(s string) string {
	if len(s) <= 2000 {
		return s
	}
	return s[:1000] + "\n[...]\n" + s[len(s)-1000:]
}
