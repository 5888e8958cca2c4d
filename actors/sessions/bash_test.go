package sessions

import "testing"

func TestBashOutputDropsNotes(t *testing.T) {
	cases := map[string]string{
		"hi\n\n[exit code: 0]":                         "hi\n",
		"(no output)\n\n[exit code: 1]":                "(no output)\n",
		"a\n\n[b] not a note\n\n[exit code: 2]":        "a\n\n[b] not a note\n",
		"out\n\n[output truncated: x]\n[exit code: 0]": "out\n",
		"no notes": "no notes",
	}
	for in, want := range cases {
		if got := bashOutput(in); got != want {
			t.Errorf("bashOutput(%q) = %q, want %q", in, got, want)
		}
	}
}
