package rpc

import (
	"encoding/json"
	"testing"
)

func TestAppendStringRoundTrips(t *testing.T) {
	for _, s := range []string{"", "plain", "quote \" back \\ slash", "ctl \x00\x01\x1f\t\r\n", "line\u2028para\u2029", "<&>", "naïve ☃ 😀", "bad \xff utf8"} {
		b := appendString(nil, s)
		var back string
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("%q encodes to invalid JSON %s: %v", s, b, err)
		}
		want := s
		if s == "bad \xff utf8" {
			want = "bad \ufffd utf8"
		}
		if back != want {
			t.Errorf("%q round-trips to %q", s, back)
		}
	}
}

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
