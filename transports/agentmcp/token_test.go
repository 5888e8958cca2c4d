package agentmcp

import (
	"regexp"
	"strings"
	"testing"

	"github.com/troupehq/troupe/transports/stdinring"
)

// A token serves the session it was minted for, under the key it was
// minted with, and nothing else.
func TestTokensNameTheirSession(t *testing.T) {
	a, b := NewTokens("key-a"), NewTokens("key-b")
	tok := a.Mint("s-1")
	if id, ok := a.Check(tok); !ok || id != "s-1" {
		t.Fatalf("own token: %q %v", id, ok)
	}
	for _, bad := range []string{"", "s-1", ".", "s-1.", tok + "x", "s-2" + tok[len("s-1"):], b.Mint("s-1")} {
		if id, ok := a.Check(bad); ok {
			t.Errorf("%q accepted for %q", bad, id)
		}
	}
}

// Two runs' keys differ, so a token of one is refused by the other; the
// form of a session's token is recognised under any key, and nothing else.
func TestRunTokensDieWithTheRun(t *testing.T) {
	first, second := NewRunTokens(), NewRunTokens()
	tok := first.Mint("s-1")
	if _, ok := second.Check(tok); ok {
		t.Fatal("a token of another run accepted")
	}
	if !MintedFor(tok, "s-1") || !MintedFor(second.Mint("s-1"), "s-1") {
		t.Fatal("a minted token not recognised")
	}
	for _, bad := range []string{"", "s-1", "s-1.", "s-1.short", tok + "x", "s-2" + tok[len("s-1"):], "s" + tok[len("s-1"):],
		"s-1." + strings.Repeat("!", len(tok)-len("s-1."))} {
		if MintedFor(bad, "s-1") {
			t.Errorf("%q taken for s-1's token", bad)
		}
	}
}

// grep finds a line split across its read chunks at its offset, and
// the last line, with no newline, only once the stream ended.
func TestScanCarriesLinesAcrossChunks(t *testing.T) {
	g := stdinring.NewRegistry(t.TempDir(), 0)
	defer g.Close()
	r, err := g.Open("s", stdinring.Options{CapacityBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	pad := strings.Repeat("x", scanChunk-10) + "\n"
	data := pad + "needle across the chunk edge\n" + "tail needle"
	if _, err := r.Write([]byte(data), false); err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile("needle")
	out, err := scan(r, re, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Matches) != 1 || out.Matches[0].Cursor != int64(len(pad)) || out.ScannedTo != int64(strings.LastIndex(data, "\n")+1) {
		t.Fatalf("before eof: %+v", out)
	}
	if _, err := r.Write(nil, true); err != nil {
		t.Fatal(err)
	}
	out, _ = scan(r, re, out.ScannedTo, 10)
	if len(out.Matches) != 1 || out.Matches[0].Line != "tail needle" || out.ScannedTo != int64(len(data)) {
		t.Fatalf("after eof: %+v", out)
	}
	if got := firstLines([]byte("a\nb\nc"), 2); string(got) != "a\nb\n" {
		t.Fatalf("firstLines: %q", got)
	}
	if got := lastLines([]byte("a\nb\nc\n"), 2); string(got) != "b\nc\n" {
		t.Fatalf("lastLines: %q", got)
	}
}
