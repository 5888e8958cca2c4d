package tools

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

const editSource = `package main

import "fmt"

func main() {
	fmt.Println("hello")
}

func helper() int {
	return 1
}
`

func TestEditGoldenDiff(t *testing.T) {
	dir := t.TempDir()
	p := mustWrite(t, dir, "cmd/main.go", editSource)
	res := run(t, Edit{}, callIn(t, dir, map[string]any{
		"path":       "cmd/main.go",
		"old_string": "\tfmt.Println(\"hello\")\n",
		"new_string": "\tfmt.Println(\"hello, world\")\n\tfmt.Println(helper())\n",
	}))
	requireOK(t, res)
	requireEqual(t, res.OutputType, OutputDiff)
	requireEqual(t, res.Metadata[MetaFilePath].(string), p)
	requireEqual(t, mustRead(t, p), strings.Replace(editSource, `"hello")`, "\"hello, world\")\n\tfmt.Println(helper())", 1))

	golden := filepath.Join("testdata", "edit.diff.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(res.Output), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	requireEqual(t, res.Output, mustRead(t, golden))
}

func TestEditReplaceAll(t *testing.T) {
	dir := t.TempDir()
	p := mustWrite(t, dir, "a.txt", "x = 1\ny = x\nz = x\n")
	args := map[string]any{"path": "a.txt", "old_string": "x", "new_string": "w"}

	requireError(t, run(t, Edit{}, callIn(t, dir, args)), "occurs 3 times", "replace_all")
	requireEqual(t, mustRead(t, p), "x = 1\ny = x\nz = x\n")

	args["replace_all"] = true
	requireOK(t, run(t, Edit{}, callIn(t, dir, args)))
	requireEqual(t, mustRead(t, p), "w = 1\ny = w\nz = w\n")
}

func TestEditMatchesCRLF(t *testing.T) {
	dir := t.TempDir()
	p := mustWrite(t, dir, "win.txt", "one\r\ntwo\r\nthree\r\n")
	res := run(t, Edit{}, callIn(t, dir, map[string]any{"path": "win.txt", "old_string": "one\ntwo", "new_string": "1\n2"}))
	requireOK(t, res)
	requireEqual(t, mustRead(t, p), "1\r\n2\r\nthree\r\n")
}

func TestEditKeepsMode(t *testing.T) {
	dir := t.TempDir()
	p := mustWrite(t, dir, "run.sh", "echo a\n")
	if err := os.Chmod(p, 0o700); err != nil {
		t.Fatal(err)
	}
	requireOK(t, run(t, Edit{}, callIn(t, dir, map[string]any{"path": "run.sh", "old_string": "a", "new_string": "b"})))
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	requireEqual(t, fi.Mode().Perm(), os.FileMode(0o700))
}

func TestEditErrors(t *testing.T) {
	dir := t.TempDir()
	mustWrite(t, dir, "a.txt", "alpha\n")
	mustWrite(t, dir, "bin", "a\x00b")
	cases := []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"path": "a.txt", "old_string": "beta", "new_string": "x"}, "not found in a.txt"},
		{map[string]any{"path": "nope", "old_string": "a", "new_string": "b"}, "file not found: nope"},
		{map[string]any{"path": "bin", "old_string": "a", "new_string": "b"}, "binary file"},
		{map[string]any{"path": "a.txt", "old_string": "", "new_string": "b"}, "use write"},
		{map[string]any{"path": "a.txt", "old_string": "alpha", "new_string": "alpha"}, "identical"},
		{map[string]any{"path": "a.txt", "new_string": "b"}, `"old_string"`},
		{map[string]any{"path": "a.txt", "old_string": "a"}, `"new_string"`},
	}
	for _, c := range cases {
		requireError(t, run(t, Edit{}, callIn(t, dir, c.args)), c.want)
	}
	requireEqual(t, mustRead(t, filepath.Join(dir, "a.txt")), "alpha\n")
}
