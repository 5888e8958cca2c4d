package tools

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

func globTree(t *testing.T) string {
	dir := t.TempDir()
	for _, f := range []string{
		"main.go", "README.md", "cmd/app/app.go", "cmd/app/app_test.go",
		"internal/x/deep/y.go", ".git/hooks/pre.go", "node_modules/m/index.go", "web/src/a.ts",
	} {
		mustWrite(t, dir, f, "x")
	}
	return dir
}

func TestGlobPatterns(t *testing.T) {
	dir := globTree(t)
	cases := []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"pattern": "**/*.go"}, "cmd/app/app.go\ncmd/app/app_test.go\ninternal/x/deep/y.go\nmain.go"},
		{map[string]any{"pattern": "*.go"}, "main.go"},
		{map[string]any{"pattern": "cmd/**/*_test.go"}, "cmd/app/app_test.go"},
		{map[string]any{"pattern": "**/*.{ts,md}"}, "README.md\nweb/src/a.ts"},
		{map[string]any{"pattern": "*/*/*.go"}, "cmd/app/app.go\ncmd/app/app_test.go"},
		{map[string]any{"pattern": "**/*.go", "path": "internal"}, "internal/x/deep/y.go"},
		{map[string]any{"pattern": "node_modules/**/*.go"}, "node_modules/m/index.go"},
		{map[string]any{"pattern": filepath.ToSlash(dir) + "/cmd/**/app.go", "path": "web"}, "cmd/app/app.go"},
	}
	for _, c := range cases {
		t.Run(fmt.Sprint(c.args), func(t *testing.T) {
			res := run(t, Glob{}, callIn(t, dir, c.args))
			requireOK(t, res)
			requireEqual(t, res.Output, c.want)
		})
	}
}

func TestGlobOutsideCwdIsAbsolute(t *testing.T) {
	dir, other := t.TempDir(), globTree(t)
	res := run(t, Glob{}, callIn(t, dir, map[string]any{"pattern": "*.md", "path": other}))
	requireOK(t, res)
	requireEqual(t, res.Output, filepath.Join(other, "README.md"))
}

func TestGlobNoMatches(t *testing.T) {
	res := run(t, Glob{}, callIn(t, globTree(t), map[string]any{"pattern": "**/*.rs"}))
	requireOK(t, res)
	requireContains(t, res.Output, "No files matched")
}

func TestGlobTruncates(t *testing.T) {
	dir := t.TempDir()
	for i := range maxGlobResults + 5 {
		mustWrite(t, dir, fmt.Sprintf("f/%04d.txt", i), "")
	}
	res := run(t, Glob{}, callIn(t, dir, map[string]any{"pattern": "**/*.txt"}))
	requireOK(t, res)
	requireContains(t, res.Output, "f/0999.txt\n[results truncated: showing the first 1000 matches")
	if strings.Contains(res.Output, "f/1000.txt") {
		t.Fatal("glob returned more than the limit")
	}
}

func TestGlobErrors(t *testing.T) {
	dir := globTree(t)
	requireError(t, run(t, Glob{}, callIn(t, dir, map[string]any{})), `"pattern"`)
	requireError(t, run(t, Glob{}, callIn(t, dir, map[string]any{"pattern": "[a-"})), `"pattern"`, "not a valid glob")
	requireError(t, run(t, Glob{}, callIn(t, dir, map[string]any{"pattern": "*", "path": "nope"})), "directory not found: nope")
	requireError(t, run(t, Glob{}, callIn(t, dir, map[string]any{"pattern": "*", "path": "main.go"})), "is not a directory")
}
