package logfile

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Writes past the limit rotate: the newest lines are in FILE, older ones
// in FILE.1, FILE.2, nothing beyond Keep, no line split or lost among the
// files kept.
func TestRotatesBySizeKeepingTheNewest(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "daemon.log")
	l, err := Open(path, Options{MaxBytes: 100, Keep: 2})
	if err != nil {
		t.Fatal(err)
	}
	line := func(i int) string { return "line " + strings.Repeat("x", 20) + string(rune('a'+i)) + "\n" }
	for i := range 20 {
		if _, err := l.Write([]byte(line(i))); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	var all []byte
	for _, name := range []string{path + ".2", path + ".1", path} {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) > 100 {
			t.Fatalf("%s holds %d bytes, over the limit", name, len(b))
		}
		all = append(all, b...)
	}
	if _, err := os.Stat(path + ".3"); !os.IsNotExist(err) {
		t.Fatalf("a third rotated file is kept: %v", err)
	}
	var want bytes.Buffer
	for i := 20 - bytes.Count(all, []byte("\n")); i < 20; i++ {
		want.WriteString(line(i))
	}
	if string(all) != want.String() {
		t.Fatalf("kept lines:\n%s\nwant the newest:\n%s", all, want.String())
	}
	if bytes.Count(all, []byte("\n")) < 7 {
		t.Fatalf("only %d lines kept", bytes.Count(all, []byte("\n")))
	}
}

// An existing file is appended to and counts towards the limit.
func TestAppendsToAnExistingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "daemon.log")
	if err := os.WriteFile(path, []byte("before\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := Open(path, Options{MaxBytes: 10})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Write([]byte("after\n")); err != nil {
		t.Fatal(err)
	}
	l.Close()
	b1, _ := os.ReadFile(path + ".1")
	b, _ := os.ReadFile(path)
	if string(b1) != "before\n" || string(b) != "after\n" {
		t.Fatalf("file %q, .1 %q", b, b1)
	}
	if _, err := l.Write([]byte("x")); err == nil {
		t.Fatal("a write after Close succeeded")
	}
}

// Concurrent writers never interleave inside a line (run with -race).
func TestConcurrentWrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "daemon.log")
	l, err := Open(path, Options{MaxBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for range 100 {
				_, _ = l.Write([]byte(strings.Repeat(string(rune('a'+w)), 50) + "\n"))
			}
		})
	}
	wg.Wait()
	l.Close()
	b, _ := os.ReadFile(path)
	for _, ln := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		if len(ln) != 50 || strings.Count(ln, ln[:1]) != 50 {
			t.Fatalf("mixed line %q", ln)
		}
	}
	if n := strings.Count(string(b), "\n"); n != 400 {
		t.Fatalf("%d lines, want 400", n)
	}
}
