package terminal

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/troupehq/troupe/transports/jsonrpc"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files in testdata")

// feed shows recorded frames (testdata/NAME.jsonl, what a client of the
// daemon read) as the Client would, pressing key when a permission
// request is shown (none when key is 0).
func feed(t *testing.T, r *Renderer, name string, key byte) {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var fr jsonrpc.Message
		if err := json.Unmarshal(sc.Bytes(), &fr); err != nil {
			t.Fatalf("%s: %v", sc.Text(), err)
		}
		switch {
		case fr.Method == "session/request_permission":
			a, err := ParseAsk(fr.ID, fr.Params)
			if err != nil {
				t.Fatal(err)
			}
			r.Ask(a)
			if key == 0 {
				continue
			}
			got, o, ok := r.Key(key)
			if !ok || got != a {
				t.Fatalf("key %q picked nothing in %+v", key, a.Options)
			}
			if o.OptionID != "allow_once" {
				t.Fatalf("key %q picked %s", key, o.OptionID)
			}
		case fr.Method == "session/update":
			r.Update(fr.Params)
		case fr.Method != "":
			r.Notification(fr.Method, fr.Params)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *updateGolden {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Fatalf("%s differs (-update rewrites it)\ngot:\n%q\nwant:\n%q", path, got, want)
	}
}

var variants = []struct {
	name string
	opts Options
}{
	{"plain", Options{}},
	{"colour", Options{Colour: true}},
	{"tty", Options{Colour: true, Live: true}},
}

// A recorded turn: thinking dimmed, text, an edit asked about and
// allowed by key, its line with the duration from the stamps, the diff
// coloured, the turn's end. Rendering it twice gives the same bytes.
func TestRenderRecordedTurn(t *testing.T) {
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			var a, b bytes.Buffer
			feed(t, NewRenderer(&a, v.opts), "turn", 'y')
			feed(t, NewRenderer(&b, v.opts), "turn", 'y')
			if a.String() != b.String() {
				t.Fatalf("two renderings differ:\n%q\n%q", a.String(), b.String())
			}
			if v.opts.Colour != strings.Contains(a.String(), "\x1b[") {
				t.Fatalf("colour %v, output %q", v.opts.Colour, a.String())
			}
			golden(t, "turn."+v.name, a.String())
		})
	}
}

// Another client answers first: the prompt is withdrawn saying who
// answered, and a key pressed after picks nothing.
func TestRenderYieldsToAnotherAnswer(t *testing.T) {
	var out bytes.Buffer
	r := NewRenderer(&out, Options{})
	feed(t, r, "yield", 0)
	if _, _, ok := r.Key('y'); ok {
		t.Fatal("a key answered a request another client had answered")
	}
	if !strings.Contains(out.String(), "Reject answered by client-browser: allowed\n") {
		t.Fatalf("output: %q", out.String())
	}
	golden(t, "yield.plain", out.String())
}

// History and the session's other news: a replayed prompt, a failed
// tool with its first line, the queue's changes, compaction, title,
// mode, the session going cold.
func TestRenderHistoryAndNews(t *testing.T) {
	for _, v := range variants[:2] {
		t.Run(v.name, func(t *testing.T) {
			var out bytes.Buffer
			feed(t, NewRenderer(&out, v.opts), "history", 0)
			golden(t, "history."+v.name, out.String())
		})
	}
}

// Several requests at once are asked one after the other, each with its
// own key; output that arrives while one is shown is written above it.
func TestRenderAsksInTurn(t *testing.T) {
	var out bytes.Buffer
	r := NewRenderer(&out, Options{})
	opts := `[{"optionId":"allow_once","name":"Allow once","kind":"allow_once"},{"optionId":"reject_once","name":"Reject","kind":"reject_once"}]`
	for _, id := range []string{"1", "2"} {
		a, err := ParseAsk(json.RawMessage(id), json.RawMessage(`{"sessionId":"s","toolCall":{"toolCallId":"c`+id+`","title":"bash","rawInput":{"command":"echo `+id+`"}},"options":`+opts+`}`))
		if err != nil {
			t.Fatal(err)
		}
		r.Ask(a)
	}
	r.Notification("hydra-acp/prompt_queue/removed", json.RawMessage(`{"sessionId":"s","messageId":"m","reason":"cancelled"}`))
	if _, _, ok := r.Key('x'); ok {
		t.Fatal("x picked an option")
	}
	a, o, ok := r.Key('n')
	if !ok || string(a.ID) != "1" || o.OptionID != "reject_once" {
		t.Fatalf("first answer: %v %+v %v", a, o, ok)
	}
	a, o, ok = r.Key('y')
	if !ok || string(a.ID) != "2" || o.OptionID != "allow_once" {
		t.Fatalf("second answer: %v %+v %v", a, o, ok)
	}
	want := "? allow bash echo 1?  [y] Allow once  [n] Reject \n" +
		"- queued prompt cancelled\n" +
		"? allow bash echo 1?  [y] Allow once  [n] Reject → Reject\n" +
		"? allow bash echo 2?  [y] Allow once  [n] Reject → Allow once\n"
	if out.String() != want {
		t.Fatalf("got:\n%q\nwant:\n%q", out.String(), want)
	}
}

// The spinner shows on a terminal only after a short wait, with the time
// waited, and is erased by the first output.
func TestRenderSpinner(t *testing.T) {
	now := time.Unix(100, 0)
	var out bytes.Buffer
	r := NewRenderer(&out, Options{Live: true, Now: func() time.Time { return now }})
	r.PromptSent()
	now = now.Add(100 * time.Millisecond)
	r.Tick()
	if out.Len() != 0 {
		t.Fatalf("spinner before the delay: %q", out.String())
	}
	now = now.Add(1200 * time.Millisecond)
	r.Tick()
	r.Update(json.RawMessage(`{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}`))
	want := "\r\x1b[2K⠙ waiting for the model 1.3s\r\x1b[2Khi"
	if out.String() != want {
		t.Fatalf("got %q, want %q", out.String(), want)
	}
	out.Reset()
	NewRenderer(&out, Options{Now: func() time.Time { return now }}).Tick()
	if out.Len() != 0 {
		t.Fatalf("spinner off a terminal: %q", out.String())
	}
}

// A call that ends while a request is shown gets its line and diff
// together above the request, which is shown again below them.
func TestRenderToolEndsUnderAsk(t *testing.T) {
	var out bytes.Buffer
	r := NewRenderer(&out, Options{})
	a, err := ParseAsk(json.RawMessage(`7`), json.RawMessage(`{"sessionId":"s","toolCall":{"toolCallId":"c2","title":"bash","rawInput":{"command":"ls"}},"options":[{"optionId":"allow_once","name":"Allow once","kind":"allow_once"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	r.Ask(a)
	r.Update(json.RawMessage(`{"sessionId":"s","update":{"sessionUpdate":"tool_call_update","toolCallId":"c1","title":"edit","kind":"edit","status":"completed","rawInput":{"path":"a.txt"},"content":[{"type":"content","content":{"type":"text","text":"--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-x\n+y\n"}}]},"_meta":{"hydra-acp":{"recordedAt":2500}}}`))
	want := "? allow bash ls?  [y] Allow once \n" +
		"  ✓ edit a.txt 0.0s\n    --- a/a.txt\n    +++ b/a.txt\n    @@ -1 +1 @@\n    -x\n    +y\n" +
		"? allow bash ls?  [y] Allow once "
	if out.String() != want {
		t.Fatalf("got:\n%q\nwant:\n%q", out.String(), want)
	}
}

// With Side set, the agent's answer alone goes to the main writer (the
// block's closing newline with it); thinking, tool lines and the turn's
// end go to Side.
func TestRenderSideTakesAllButTheAnswer(t *testing.T) {
	var answer, side bytes.Buffer
	r := NewRenderer(&answer, Options{Side: &side})
	for _, u := range []string{
		`{"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"Hmm."}}`,
		`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hello "}}`,
		`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"there"}}`,
		`{"sessionUpdate":"tool_call","toolCallId":"c1","title":"bash","status":"pending","rawInput":{"command":"ls"}}`,
		`{"sessionUpdate":"tool_call_update","toolCallId":"c1","status":"completed"}`,
		`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"done"}}`,
	} {
		r.Update(json.RawMessage(`{"sessionId":"s","update":` + u + `}`))
	}
	r.TurnEnded("end_turn")
	if answer.String() != "hello there\ndone\n" {
		t.Fatalf("answer: %q", answer.String())
	}
	if side.String() != "┊ Hmm.\n  ✓ bash ls\n── end_turn\n" { // thinking marked: no colour
		t.Fatalf("side: %q", side.String())
	}
}

// Without colour each line of thinking is marked, a line break at a
// chunk's end leaving the mark to the next line, so none dangles.
func TestRenderMarksThinkingWithoutColour(t *testing.T) {
	var out strings.Builder
	r := NewRenderer(&out, Options{})
	for _, u := range []string{
		`{"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"one\n"}}`,
		`{"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"two\nthree"}}`,
		`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"answer"}}`,
	} {
		r.Update(json.RawMessage(`{"sessionId":"s","update":` + u + `}`))
	}
	r.EndLine()
	if want := "┊ one\n┊ two\n┊ three\nanswer\n"; out.String() != want {
		t.Fatalf("got %q, want %q", out.String(), want)
	}
}
