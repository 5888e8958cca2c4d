package testkit

import (
	"os"
	"path/filepath"
	"testing"
)

func TestDocTreePlaces(t *testing.T) {
	md := "# x\n\n## The actor tree\n\n```\ntroupe                the guardian\n├── sessions          supervisor\n│   │                 more words\n│   └── <session id>  one session\n│       ├── run$N     its run\n│       └── mcp-<i>   a server\n└── transports\n```\n"
	path := filepath.Join(t.TempDir(), "A.md")
	NoError(t, os.WriteFile(path, []byte(md), 0o644))
	doc := ReadDocTree(t, path)
	for id, want := range map[string]string{
		"troupe":                   "troupe",
		"troupe/sessions/s1":       "troupe/sessions/<session id>",
		"troupe/sessions/s1/run$a": "troupe/sessions/<session id>/run$N",
		"troupe/sessions/s1/mcp-0": "troupe/sessions/<session id>/mcp-<i>",
		"troupe/sessions/s1/$7":    "", // an unnamed child has no place
		"troupe/sessions/s1/runs":  "",
		"troupe/streams":           "",
		"$3":                       "",
	} {
		if got := doc.Place(id); got != want {
			t.Errorf("Place(%q) = %q, want %q", id, got, want)
		}
	}
}
