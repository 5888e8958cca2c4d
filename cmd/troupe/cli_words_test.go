package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/troupehq/troupe/testkit"
)

// The session verbs' errors are in the command's words: an empty search
// or title is refused before the daemon would name its parameters ("q is
// required"), and an export that cannot be written names the file asked
// for, not the temporary one beside it (issue 25, item 16).
func TestSessionErrorsNameTheCommandsWords(t *testing.T) {
	home := t.TempDir()
	d := startDaemon(t, home, nil)
	sid := d.create(t, t.TempDir())
	env := []string{"TROUPE_HOME=" + home}

	r := cli(t, env, "", "session", "search", " ")
	testkit.Equal(t, r.code, 2)
	testkit.Equal(t, r.stderr, "troupe session search: give the text to search for\n")

	r = cli(t, env, "", "session", "title", sid, "")
	testkit.Equal(t, r.code, 2)
	testkit.Equal(t, r.stderr, "troupe session title: give the title after the session id\n")

	// A folder in the file's place: the rename over it fails.
	out := filepath.Join(t.TempDir(), "bundle.json")
	testkit.NoError(t, os.Mkdir(out, 0o700))
	testkit.NoError(t, os.WriteFile(filepath.Join(out, "keep"), nil, 0o600))
	r = cli(t, env, "", "session", "export", sid, "-o", out)
	testkit.Equal(t, r.code, 1)
	if !strings.HasPrefix(r.stderr, "troupe session export: write "+out+": ") || strings.Contains(r.stderr, ".troupe-export-") {
		t.Fatalf("export's error: %q", r.stderr)
	}
	// Where nothing can be made: the folder does not exist.
	missing := filepath.Join(t.TempDir(), "no", "such", "bundle.json")
	r = cli(t, env, "", "session", "export", sid, "-o", missing)
	testkit.Equal(t, r.code, 1)
	testkit.Equal(t, r.stderr, "troupe session export: write "+missing+": no such file or directory\n")
}
