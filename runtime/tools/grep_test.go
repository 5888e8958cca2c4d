package tools

import (
	"fmt"
	"strings"
	"testing"
)

func grepTree(t *testing.T) string {
	dir := t.TempDir()
	mustWrite(t, dir, "a.go", "package a\n\nfunc Hello() {}\n")
	mustWrite(t, dir, "sub/b.txt", "say hello\nnothing\r\nHELLO again\r\n")
	mustWrite(t, dir, "sub/c.go", "// hello from c\n")
	mustWrite(t, dir, "image.bin", "hello\x00\x01binary")
	mustWrite(t, dir, ".git/config", "hello git\n")
	mustWrite(t, dir, "node_modules/x/y.js", "hello dep\n")
	return dir
}

func TestGrepMatches(t *testing.T) {
	dir := grepTree(t)
	cases := []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"pattern": "hello"}, "sub/b.txt:1:say hello\nsub/c.go:1:// hello from c"},
		{map[string]any{"pattern": "hello", "ignore_case": true}, "a.go:3:func Hello() {}\nsub/b.txt:1:say hello\nsub/b.txt:3:HELLO again\nsub/c.go:1:// hello from c"},
		{map[string]any{"pattern": "hello", "-i": true, "glob": "*.go"}, "a.go:3:func Hello() {}\nsub/c.go:1:// hello from c"},
		{map[string]any{"pattern": "hello", "glob": "sub/*.txt"}, "sub/b.txt:1:say hello"},
		{map[string]any{"pattern": "^nothing$", "path": "sub"}, "sub/b.txt:2:nothing"},
		{map[string]any{"pattern": `func \w+\(`, "path": "a.go"}, "a.go:3:func Hello() {}"},
		{map[string]any{"pattern": "hello", "path": "node_modules"}, "node_modules/x/y.js:1:hello dep"},
	}
	for _, c := range cases {
		t.Run(fmt.Sprint(c.args), func(t *testing.T) {
			res := run(t, Grep{}, callIn(t, dir, c.args))
			requireOK(t, res)
			requireEqual(t, res.Output, c.want)
		})
	}
}

func TestGrepSkipsBinaryAndVCS(t *testing.T) {
	res := run(t, Grep{}, callIn(t, grepTree(t), map[string]any{"pattern": "hello|binary"}))
	requireOK(t, res)
	for _, skipped := range []string{"image.bin", ".git", "node_modules"} {
		if strings.Contains(res.Output, skipped) {
			t.Fatalf("grep searched %s:\n%s", skipped, res.Output)
		}
	}
}

func TestGrepBoundsOutput(t *testing.T) {
	dir := t.TempDir()
	mustWrite(t, dir, "many.txt", strings.Repeat("match\n", maxGrepMatches+50))
	mustWrite(t, dir, "wide.txt", "match "+strings.Repeat("w", 5000)+"\n")
	res := run(t, Grep{}, callIn(t, dir, map[string]any{"pattern": "match"}))
	requireOK(t, res)
	requireEqual(t, countLines(res.Output), maxGrepMatches+1)
	requireContains(t, res.Output, "[results truncated: showing the first 200 matching lines")

	res = run(t, Grep{}, callIn(t, dir, map[string]any{"pattern": "match", "path": "wide.txt"}))
	requireOK(t, res)
	requireContains(t, res.Output, "[line truncated]")
	if len(res.Output) > maxLineBytes+100 {
		t.Fatalf("a wide line was not clipped: %d bytes", len(res.Output))
	}
}

func TestGrepNoMatches(t *testing.T) {
	res := run(t, Grep{}, callIn(t, grepTree(t), map[string]any{"pattern": "absent"}))
	requireOK(t, res)
	requireContains(t, res.Output, `No matches for "absent"`)
}

func TestGrepErrors(t *testing.T) {
	dir := grepTree(t)
	requireError(t, run(t, Grep{}, callIn(t, dir, map[string]any{})), `"pattern"`)
	requireError(t, run(t, Grep{}, callIn(t, dir, map[string]any{"pattern": "(unclosed"})), `"pattern"`, "regular expression")
	requireError(t, run(t, Grep{}, callIn(t, dir, map[string]any{"pattern": "x", "glob": "[a-"})), `"glob"`)
	requireError(t, run(t, Grep{}, callIn(t, dir, map[string]any{"pattern": "x", "path": "missing"})), "path not found: missing")
	requireError(t, run(t, Grep{}, callIn(t, dir, map[string]any{"pattern": "x", "path": "image.bin"})), "not a readable text file")
}
