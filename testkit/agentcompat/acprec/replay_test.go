package acprec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// Replay writes the agent's lines with this run's paths, compares the
// daemon's messages with the recorded ones as JSON values (key order and
// spacing aside, paths normalised), and reports a differing message, one
// past the recording's end, and one missing when the daemon closes stdin.
func TestReplayComparesTheDaemonsMessages(t *testing.T) {
	rec, state := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(rec, "start-1.jsonl"), strings.Join([]string{
		`{"from":"troupe","msg":{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/CWD"}}}`,
		`{"from":"agent","msg":{"jsonrpc":"2.0","id":1,"result":{"sessionId":"up-1","at":"/CWD/x"}}}`,
		`{"from":"troupe","msg":{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"up-1"}}}`,
	}, "\n")+"\n")
	writeFile(t, filepath.Join(rec, "start-2.jsonl"), `{"from":"troupe","msg":{"jsonrpc":"2.0","id":1,"method":"initialize"}}`+"\n")
	from := Normaliser{Paths: map[string]string{"/tmp/run": "/CWD"}}
	to := Normaliser{Paths: map[string]string{"/CWD": "/tmp/run"}}

	var out strings.Builder
	in := strings.NewReader(`{"method":"session/new","params":{"cwd":"/tmp/run"},"id":1,"jsonrpc":"2.0"}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"up-2"}}` + "\n" +
		`{"jsonrpc":"2.0","method":"session/cancel"}` + "\n")
	if err := Replay(rec, state, from, to, in, &out); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), `{"jsonrpc":"2.0","id":1,"result":{"sessionId":"up-1","at":"/tmp/run/x"}}`+"\n"; got != want {
		t.Fatalf("the agent wrote %q, want %q", got, want)
	}
	// The second start plays start-2, and the daemon closes before it sends.
	if err := Replay(rec, state, from, to, strings.NewReader(""), &out); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(state, Mismatches))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 3 ||
		!strings.HasPrefix(lines[0], `start-1 line 3: the daemon sent {"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"up-2"}}`) ||
		!strings.HasPrefix(lines[1], `start-1 past the recording's end: the daemon sent {"jsonrpc":"2.0","method":"session/cancel"}`) ||
		!strings.HasPrefix(lines[2], "start-2 line 1: the daemon closed the agent's stdin") {
		t.Fatalf("mismatches:\n%s", b)
	}
	// What each start played and read is kept in the tee's format.
	played, err := ReadRecordings(state)
	if err != nil {
		t.Fatal(err)
	}
	if len(played) != 2 || len(played[0].Lines) != 4 || played[0].Lines[1].From != "agent" || played[0].Lines[0].Method() != "session/new" {
		t.Fatalf("played: %+v", played)
	}
}

// A line neither side wrote is refused.
func TestReadRecordingsRefusesAnUnknownSide(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "start-1.jsonl"), `{"from":"nobody","msg":{}}`+"\n")
	if _, err := ReadRecordings(dir); err == nil || !strings.Contains(err.Error(), `from "nobody"`) {
		t.Fatalf("err %v", err)
	}
}

// Writing a recording normalises paths in both sides' messages and cuts
// only the agent's long strings, keeping their place and length.
func TestWriteRecordingsCutsTheAgentsLongStrings(t *testing.T) {
	src, dst := t.TempDir(), t.TempDir()
	long := strings.Repeat("é", 3000)
	writeFile(t, filepath.Join(src, "start-1.jsonl"),
		`{"from":"troupe","msg":{"id":1,"method":"session/new","params":{"cwd":"/tmp/run","long":"`+long+`"}}}`+"\n"+
			`{"from":"agent","msg":{"id":1,"result":{"n":1.50,"body":"`+long+`","short":"/tmp/run"}}}`+"\n")
	n := Normaliser{Paths: map[string]string{"/tmp/run": "/CWD"}, CutAgentStrings: 1000}
	if err := WriteRecordings(src, dst, n); err != nil {
		t.Fatal(err)
	}
	rs, err := ReadRecordings(dst)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(rs[0].Lines[0].Msg); !strings.Contains(got, `"cwd":"/CWD"`) || !strings.Contains(got, long) {
		t.Fatalf("troupe's message: %.200s", got)
	}
	want := `{"id":1,"result":{"body":"` + strings.Repeat("é", 32) + `…[cut: 6000 bytes]","n":1.50,"short":"/CWD"}}`
	if got := string(rs[0].Lines[1].Msg); got != want {
		t.Fatalf("the agent's message: %s, want %s", got, want)
	}
}
