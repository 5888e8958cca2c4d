package projectiontest

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Run is a projector's table test: project turns each case's log into the
// protocol's lines, which must match the case's golden file.
func Run(t *testing.T, project func(t *testing.T, c Case) []string) {
	for _, c := range Cases(t) {
		t.Run(c.Name, func(t *testing.T) { Golden(t, c.Name, project(t, c)) })
	}
}

var update = flag.Bool("update-projection", false, "rewrite the projectors' golden files in testdata/projection")

// Golden compares lines with testdata/projection/NAME.golden, one line
// each; -update-projection rewrites the file instead.
func Golden(t *testing.T, name string, lines []string) {
	t.Helper()
	path := filepath.Join("testdata", "projection", name+".golden")
	got := strings.Join(lines, "\n") + "\n"
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update-projection to write it)", err)
	}
	if got == string(want) {
		return
	}
	gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
	for i := 0; i < len(gl) || i < len(wl); i++ {
		var g, w string
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if g != w {
			t.Fatalf("%s: line %d differs\nwant: %s\n got: %s", path, i+1, w, g)
		}
	}
}
