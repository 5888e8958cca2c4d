package tooltext

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParse checks that no reply panics the parser and that what it returns
// always keeps its promises, streamed or not. Seeds live in
// testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	for _, s := range streamReplies {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, reply string) {
		r := Parse(reply)
		checkResult(t, reply, r)
		for _, size := range []int{1, 3} {
			requireEqual(t, parseInChunks(reply, size), r)
		}
	})
}

func checkResult(t *testing.T, reply string, r Result) {
	t.Helper()
	if len(r.Text) > len(reply) {
		t.Fatalf("visible text %q longer than the reply", r.Text)
	}
	if utf8.ValidString(reply) && (r.Text != strings.TrimSpace(r.Text) || r.Thinking != strings.TrimSpace(r.Thinking)) {
		t.Fatalf("text %q or thinking %q not trimmed", r.Text, r.Thinking)
	}
	for _, c := range r.Calls {
		if c.Name == "" || c.Name != strings.TrimSpace(c.Name) {
			t.Fatalf("bad call name %q", c.Name)
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, []byte(c.Arguments)); err != nil || compact.String() != c.Arguments || c.Arguments[0] != '{' {
			t.Fatalf("arguments %q are not a compact JSON object (%v)", c.Arguments, err)
		}
		if !strings.Contains(reply, c.Raw) || !strings.HasPrefix(c.Raw, openTag(c.Format)) {
			t.Fatalf("raw %q is not a %s block of the reply", c.Raw, c.Format)
		}
		if c.Format != r.Calls[0].Format {
			t.Fatalf("calls mix formats: %v", r.Calls)
		}
	}
	for _, e := range r.Errors {
		if e.Err == nil || e.Raw == "" || !strings.Contains(reply, e.Raw) {
			t.Fatalf("bad block error %#v", e)
		}
	}
	if r.Final() != (len(r.Calls) == 0 && len(r.Errors) == 0) {
		t.Fatal("Final disagrees with calls and errors")
	}
}

func parseInChunks(reply string, size int) Result {
	var f Filter
	for len(reply) > size {
		f.Push(reply[:size])
		reply = reply[size:]
	}
	f.Push(reply)
	_, r := f.Close()
	return r
}

func openTag(f Format) string {
	for _, t := range openTags {
		if t.format == f {
			return t.open
		}
	}
	return "?"
}
