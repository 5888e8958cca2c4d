package tooltext

import (
	"strings"
	"testing"
)

// streamReplies are replies whose streamed and whole parses must agree.
var streamReplies = []string{
	"",
	"   \n\t ",
	"Plain answer, no tools.",
	"  padded answer \n\n",
	"I'll check.\n<tool_call>{\"name\":\"read_file\",\"args\":{\"path\":\"/tmp/foo.py\"}}</tool_call>\nDone.",
	"<think>\nplan it\n</think>\n\nAnswer: <|tool_call>call:run{command: \"ls\",}<tool_call|> then <|tool_call|>call:x{}<|/tool_call|>",
	"<think>a</think> <think> b </think>x<think>unclosed <tool_call>",
	"a < b <tool <|tool_ca <think <tool_call|> </think> <|/tool_call|> end <",
	"café ☕ <tool_call>{\"name\":\"ünï\",\"args\":{\"ключ\":\"значение 🎉\"}}</tool_call> naïve\u2028\u00a0",
	"\u3000\u2028 lead and trail \u00a0\u0085",
	"x\xe2\x80<think>t</think>\xa8y \xff\xfe",
	"<tool_call>{\"name\":\"a\"}</tool_call><tool_call>broken</tool_call><|tool_call>call:b{}<tool_call|>",
	"text <tool_call>{\"name\":\"cut\",\"args\":{\"x\":",
	"text <tool_call>{\"name\":\"whole\"}  ",
	"<think>only thinking</thi",
	"<<<<tool_call>>>{\"name\":\"x\"}</tool_call>></tool_call>",
	"<tool_call></tool_call",
}

func streamChunks(t *testing.T, chunks []string) (text, thinking string, r Result) {
	t.Helper()
	var f Filter
	var tb, kb strings.Builder
	for _, c := range chunks {
		d := f.Push(c)
		tb.WriteString(d.Text)
		kb.WriteString(d.Thinking)
	}
	d, r := f.Close()
	tb.WriteString(d.Text)
	kb.WriteString(d.Thinking)
	return tb.String(), kb.String(), r
}

func requireStreamMatches(t *testing.T, reply string, chunks []string) {
	t.Helper()
	want := Parse(reply)
	text, thinking, got := streamChunks(t, chunks)
	if text != want.Text || thinking != want.Thinking {
		t.Fatalf("chunks %q:\nstreamed text %q thinking %q\nwhole    text %q thinking %q", chunks, text, thinking, want.Text, want.Thinking)
	}
	requireEqual(t, got, want)
}

func TestFilterMatchesParseAtEverySplit(t *testing.T) {
	for _, reply := range streamReplies {
		t.Run(reply, func(t *testing.T) {
			for i := 0; i <= len(reply); i++ {
				requireStreamMatches(t, reply, []string{reply[:i], reply[i:]})
			}
			bytewise := make([]string, len(reply))
			for i := 0; i < len(reply); i++ {
				bytewise[i] = reply[i : i+1]
			}
			requireStreamMatches(t, reply, bytewise)
			if len(reply) > 80 {
				return
			}
			for i := 0; i <= len(reply); i++ {
				for j := i; j <= len(reply); j++ {
					requireStreamMatches(t, reply, []string{reply[:i], reply[i:j], "", reply[j:]})
				}
			}
		})
	}
}

// A UI must never show part of a tag: when every '<' of a reply belongs to
// a tag, no streamed delta may contain one.
func TestFilterNeverShowsPartOfATag(t *testing.T) {
	reply := "Let me look.<think>hm</think> <tool_call>{\"name\":\"a\"}</tool_call> and <|tool_call>call:b{}<tool_call|>. Bye"
	var f Filter
	for i := 0; i < len(reply); i++ {
		if d := f.Push(reply[i : i+1]); strings.ContainsAny(d.Text, "<|") {
			t.Fatalf("delta %q after byte %d shows part of a tag", d.Text, i)
		}
	}
	d, r := f.Close()
	requireEqual(t, d.Text, "")
	requireEqual(t, r.Text, "Let me look.  and . Bye")
}

func TestFilterEmitsPromptly(t *testing.T) {
	var f Filter
	steps := []struct {
		chunk string
		want  Delta
	}{
		{"  Hello wor", Delta{Text: "Hello wor"}},
		{"ld\n", Delta{Text: "ld"}},
		{"caf\xc3", Delta{Text: "\ncaf"}},
		{"\xa9 <", Delta{Text: "é"}},
		{"b", Delta{Text: " <b"}},
		{" <thi", Delta{}},
		{"nk> step one </th", Delta{Thinking: "step one"}},
		{"ink><think>two", Delta{Thinking: "\n\ntwo"}},
		{"</think>Done <tool_", Delta{Text: " Done"}},
		{"call>{\"name\":\"a\"}</tool", Delta{}},
		{"_call>!", Delta{Text: " !"}},
	}
	for _, s := range steps {
		requireEqual(t, f.Push(s.chunk), s.want)
	}
	d, r := f.Close()
	requireEqual(t, d, Delta{})
	requireEqual(t, r.Text, "Hello world\ncafé <b Done !")
	requireEqual(t, r.Thinking, "step one\n\ntwo")
	requireEqual(t, callsOf(r), []Call{{Name: "a", Arguments: "{}"}})
}

func TestFilterCloseFlushesHeldText(t *testing.T) {
	var f Filter
	requireEqual(t, f.Push("see <tool_ca"), Delta{Text: "see"})
	d, r := f.Close()
	requireEqual(t, d, Delta{Text: " <tool_ca"})
	requireEqual(t, r.Text, "see <tool_ca")
}

func TestFilterAfterCloseAndReset(t *testing.T) {
	var f Filter
	f.Push(`<tool_call>{"name":"a"}</tool_call>first`)
	_, first := f.Close()
	requireEqual(t, f.Push("ignored"), Delta{})
	d, again := f.Close()
	requireEqual(t, d, Delta{})
	requireEqual(t, again, first)

	f.Reset()
	requireEqual(t, f.Push("<think>x</think>second"), Delta{Text: "second", Thinking: "x"})
	_, second := f.Close()
	requireEqual(t, second, Parse("<think>x</think>second"))
	requireEqual(t, first.Text, "first")
}

func TestFilterPushAllocations(t *testing.T) {
	var f Filter
	for range 100 {
		f.Push("warm up the buffers. ")
	}
	allocs := testing.AllocsPerRun(1000, func() {
		f.Push("plain streamed text. ")
	})
	if allocs > 1 {
		t.Fatalf("Push of plain text allocates %v times, want at most 1 (the delta string)", allocs)
	}
}

// A long call streamed in small deltas must stay linear: the open block is
// neither rescanned nor moved on every Push.
func TestFilterLongCallIsLinear(t *testing.T) {
	payload := strings.Repeat("x", 1<<20)
	reply := `<tool_call>{"name":"write","args":{"content":"` + payload + `"}}</tool_call>`
	var f Filter
	for len(reply) > 16 {
		f.Push(reply[:16])
		reply = reply[16:]
	}
	f.Push(reply)
	_, r := f.Close()
	if len(r.Calls) != 1 || len(r.Calls[0].Arguments) != len(payload)+len(`{"content":""}`) {
		t.Fatalf("got %d calls, errors %v", len(r.Calls), r.Errors)
	}
}
