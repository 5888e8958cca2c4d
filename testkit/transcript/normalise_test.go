package transcript

import (
	"strings"
	"testing"
)

func TestNormaliserLine(t *testing.T) {
	long := `"` + strings.Repeat("ab", 160) + `"`
	tests := []struct{ name, in, want string }{
		{"paths, the longest first", `{"home":"/w/.troupe/db","cwd":"/w","url":"http://127.0.0.1:9/v1"}`,
			`{"home":"$TROUPE_HOME/db","cwd":"$WORK","url":"$LLM/v1"}`},
		{"ids numbered by first appearance", `{"a":"s-abcdefghijklmnopqrstuvwx","b":"msg-00ff","c":"s-abcdefghijklmnopqrstuvwx","d":"compact-1a"}`,
			`{"a":"$S1","b":"$M1","c":"$S1","d":"$M2"}`},
		{"rpc request ids", `{"id":"rpc-123456789-7"}`, `{"id":"$M1"}`},
		{"a user's id stays", `{"session_id":"conv-1","text":"s-short"}`, `{"session_id":"conv-1","text":"s-short"}`},
		{"times, durations and pids", `{"timestamp":1700000000123,"createdAt":"2026-01-02T03:04:05Z","pid":4242,"durationMs":12.5,"duration_ms":-1}`,
			`{"timestamp":0,"createdAt":"0","pid":0,"durationMs":0,"duration_ms":0}`},
		{"deterministic durations stay", `{"delayMs":2000,"attempt":1}`, `{"delayMs":2000,"attempt":1}`},
		{"escaped keys are text, not members", `{"text":"\"timestamp\":5"}`, `{"text":"\"timestamp\":5"}`},
		{"long strings shortened", `{"m":` + long + `}`, `{"m":"` + strings.Repeat("ab", 19) + `a…(320 bytes)"}`},
		{"299 bytes stay", `{"m":"` + strings.Repeat("x", 299) + `"}`, `{"m":"` + strings.Repeat("x", 299) + `"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := NewNormaliser()
			n.Literal("/w", "WORK")
			n.Literal("/w/.troupe", "TROUPE_HOME")
			n.Literal("http://127.0.0.1:9", "LLM")
			if got := n.Line(tt.in); got != tt.want {
				t.Errorf("Line(%s)\n got %s\nwant %s", tt.in, got, tt.want)
			}
		})
	}
}

func TestNormaliserExpand(t *testing.T) {
	n := NewNormaliser()
	n.Line(`{"a":"s-abcdefghijklmnopqrstuvwx","b":"msg-1","c":"s-bbbbbbbbbbbbbbbbbbbbbbbb"}`)
	for i := 2; i <= 10; i++ { // $M2 ... $M10: msg-ff, msg-fff ...
		n.Line(`{"id":"msg-` + strings.Repeat("f", i) + `"}`)
	}
	vars := map[string]string{"WORK": "/w", "BIG": "lorem"}
	lookup := func(k string) string { return vars[k] }
	tests := []struct{ in, want string }{
		{`{"s":"$S1","t":"${S2}"}`, `{"s":"s-abcdefghijklmnopqrstuvwx","t":"s-bbbbbbbbbbbbbbbbbbbbbbbb"}`},
		// $M10 is not $M1 followed by a 0.
		{`{"m":"$M1","n":"$M10"}`, `{"m":"msg-1","n":"msg-ffffffffff"}`},
		{`{"path":"$WORK/a.txt","x":"$BIG"}`, `{"path":"/w/a.txt","x":"lorem"}`},
		{`{"text":"$NOPE costs $5, $S9 too"}`, `{"text":"$NOPE costs $5, $S9 too"}`},
	}
	for _, tt := range tests {
		if got := n.Expand(tt.in, lookup); got != tt.want {
			t.Errorf("Expand(%s)\n got %s\nwant %s", tt.in, got, tt.want)
		}
	}
}
