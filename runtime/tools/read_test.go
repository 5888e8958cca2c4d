package tools

import (
	"fmt"
	"strings"
	"testing"
)

func numberedLines(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

func TestReadWholeFile(t *testing.T) {
	dir := t.TempDir()
	mustWrite(t, dir, "src/a.txt", "one\ntwo\nthree\n")
	res := run(t, Read{}, callIn(t, dir, map[string]any{"path": "src/a.txt"}))
	requireOK(t, res)
	requireEqual(t, res.Output, "one\ntwo\nthree")
	requireEqual(t, res.OutputType, OutputText)
}

func TestReadAbsolutePath(t *testing.T) {
	dir, other := t.TempDir(), t.TempDir()
	p := mustWrite(t, other, "b.txt", "elsewhere")
	res := run(t, Read{}, callIn(t, dir, map[string]any{"path": p}))
	requireOK(t, res)
	requireEqual(t, res.Output, "elsewhere")
}

func TestReadWindow(t *testing.T) {
	dir := t.TempDir()
	mustWrite(t, dir, "a.txt", numberedLines(10))
	res := run(t, Read{}, callIn(t, dir, map[string]any{"path": "a.txt", "offset": 3, "limit": 2}))
	requireOK(t, res)
	requireEqual(t, res.Output, "line 3\nline 4\n\n[Showing lines 3-4 of 10. Use offset=5 to continue.]")

	res = run(t, Read{}, callIn(t, dir, map[string]any{"path": "a.txt", "offset": 9}))
	requireOK(t, res)
	requireEqual(t, res.Output, "line 9\nline 10")
}

func TestReadTruncatesLongFile(t *testing.T) {
	dir := t.TempDir()
	mustWrite(t, dir, "big.txt", numberedLines(MaxOutputLines+500))
	res := run(t, Read{}, callIn(t, dir, map[string]any{"path": "big.txt"}))
	requireOK(t, res)
	requireContains(t, res.Output, "line 2000\n", "[Showing lines 1-2000 of 2500. Use offset=2001 to continue.]")
	if strings.Contains(res.Output, "line 2001\n") {
		t.Fatal("read past the line limit")
	}
}

func TestReadTruncatesByBytes(t *testing.T) {
	dir := t.TempDir()
	line := strings.Repeat("x", 1000) + "\n"
	mustWrite(t, dir, "wide.txt", strings.Repeat(line, 100))
	res := run(t, Read{}, callIn(t, dir, map[string]any{"path": "wide.txt"}))
	requireOK(t, res)
	if len(res.Output) > MaxOutputBytes+200 {
		t.Fatalf("output is %d bytes, over the limit", len(res.Output))
	}
	requireContains(t, res.Output, "[Showing lines 1-51 of 100. Use offset=52 to continue.]")
}

func TestReadCutsHugeLine(t *testing.T) {
	dir := t.TempDir()
	mustWrite(t, dir, "min.js", strings.Repeat("y", 3*MaxOutputBytes)+"\nnext\n")
	res := run(t, Read{}, callIn(t, dir, map[string]any{"path": "min.js"}))
	requireOK(t, res)
	requireContains(t, res.Output, "[line 1 is longer than 50 KB and was cut]", "Use offset=2 to continue")
}

func TestReadErrors(t *testing.T) {
	dir := t.TempDir()
	mustWrite(t, dir, "a.txt", "one\n")
	mustWrite(t, dir, "bin.dat", "ELF\x00\x01\x02")
	mustWrite(t, dir, "sub/x", "")
	cases := []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"path": "nope.txt"}, "file not found: nope.txt"},
		{map[string]any{"path": "sub"}, "is a directory"},
		{map[string]any{"path": "bin.dat"}, "binary file"},
		{map[string]any{"path": "a.txt", "offset": 5}, "offset 5 is past the end of a.txt (1 lines)"},
		{map[string]any{"path": "a.txt", "offset": 0}, `"offset"`},
		{map[string]any{"path": "a.txt", "limit": -1}, `"limit"`},
		{map[string]any{}, `"path"`},
	}
	for _, c := range cases {
		requireError(t, run(t, Read{}, callIn(t, dir, c.args)), c.want)
	}
}

func TestReadEmptyFile(t *testing.T) {
	dir := t.TempDir()
	mustWrite(t, dir, "empty", "")
	res := run(t, Read{}, callIn(t, dir, map[string]any{"path": "empty"}))
	requireOK(t, res)
	requireEqual(t, res.Output, "[empty is empty]")
}
