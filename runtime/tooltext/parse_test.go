package tooltext

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

var tagPairs = []struct {
	format      Format
	open, close string
}{
	{FormatStandard, "<tool_call>", "</tool_call>"},
	{FormatGemma, "<|tool_call>", "<tool_call|>"},
	{FormatPipe, "<|tool_call|>", "<|/tool_call|>"},
}

func TestParseEveryTagAndInnerForm(t *testing.T) {
	inners := []struct {
		name, inner, wantName, wantArgs string
	}{
		{"json args", `{"name":"read_file","args":{"path":"/tmp/foo.py"}}`, "read_file", `{"path":"/tmp/foo.py"}`},
		{"json arguments", `{"name": "read_file", "arguments": {"path": "/tmp/foo.py"}}`, "read_file", `{"path":"/tmp/foo.py"}`},
		{"json no args", `{"name":"list"}`, "list", `{}`},
		{"json null args", `{"name":"list","args":null}`, "list", `{}`},
		{"json string args", `{"name":"run","arguments":"{\"command\": \"ls\"}"}`, "run", `{"command":"ls"}`},
		{"json unquoted keys", `{name: "run", args: {command: "ls -la", n: 2}}`, "run", `{"command":"ls -la","n":2}`},
		{"json padded", "\n  {\"name\":\"run\",\"args\":{}}  \n", "run", `{}`},
		{"call form unquoted", `call:run{command: "ls /Applications"}`, "run", `{"command":"ls /Applications"}`},
		{"call form quoted", `call:read_file{"path": "/tmp/x"}`, "read_file", `{"path":"/tmp/x"}`},
		{"call form empty", `call:now{}`, "now", `{}`},
		{"call form spaced", ` call: search {path: ".", pattern: "x",} `, "search", `{"path":".","pattern":"x"}`},
	}
	for _, tp := range tagPairs {
		for _, in := range inners {
			t.Run(tp.format.String()+"/"+in.name, func(t *testing.T) {
				raw := tp.open + in.inner + tp.close
				r := Parse("Let me look.\n" + raw + "\n")
				requireEqual(t, r.Errors, []BlockError(nil))
				requireEqual(t, r.Calls, []Call{{Name: in.wantName, Arguments: in.wantArgs, Raw: raw, Format: tp.format}})
				requireEqual(t, r.Text, "Let me look.")
			})
		}
	}
}

func TestParseReplies(t *testing.T) {
	tests := []struct {
		name, reply string
		text, think string
		calls       []Call
		errs        []error // matched with errors.Is, in order
		errNames    []string
	}{
		{
			name:  "plain answer",
			reply: "  Here is the final answer.\n",
			text:  "Here is the final answer.",
		},
		{
			name:  "text between and after calls",
			reply: "I'll check.\n<tool_call>{\"name\":\"a\",\"args\":{}}</tool_call>\nthen\n<tool_call>{\"name\":\"b\",\"args\":{\"x\":[1,2,]}}</tool_call>\nDone.",
			text:  "I'll check.\n\nthen\n\nDone.",
			calls: []Call{{Name: "a", Arguments: `{}`}, {Name: "b", Arguments: `{"x":[1,2]}`}},
		},
		{
			name:  "adjacent calls",
			reply: `<tool_call>{"name":"a"}</tool_call><tool_call>{"name":"b"}</tool_call>`,
			calls: []Call{{Name: "a", Arguments: `{}`}, {Name: "b", Arguments: `{}`}},
		},
		{
			name:  "thinking before a call",
			reply: "<think>I should check the file.</think>\n<tool_call>{\"name\":\"run\",\"args\":{\"command\":\"ls\"}}</tool_call>",
			think: "I should check the file.",
			calls: []Call{{Name: "run", Arguments: `{"command":"ls"}`}},
		},
		{
			name:  "closed thinking",
			reply: "<think>Let me think about this...</think>Here is the answer.",
			text:  "Here is the answer.",
			think: "Let me think about this...",
		},
		{
			name:  "unclosed thinking runs to the end",
			reply: "Some text\n<think>I'm still thinking... <tool_call>{\"name\":\"x\"}</tool_call>",
			text:  "Some text",
			think: "I'm still thinking... <tool_call>{\"name\":\"x\"}</tool_call>",
		},
		{
			name:  "several thinking blocks",
			reply: "<think>\n one \n</think>A<think></think>B<think>two</think>",
			text:  "AB",
			think: "one\n\ntwo",
		},
		{
			name:  "thinking tag inside a call is argument text",
			reply: `<tool_call>{"name":"echo","args":{"s":"<think>"}}</tool_call>`,
			calls: []Call{{Name: "echo", Arguments: `{"s":"<think>"}`}},
		},
		{
			name:  "lone angle brackets and near-tags stay visible",
			reply: "a < b, <tool> and <tool_call without close <|tool and </think>",
			text:  "a < b, <tool> and <tool_call without close <|tool and </think>",
		},
		{
			name:     "standard takes precedence over gemma",
			reply:    `<|tool_call>call:b{}<tool_call|><tool_call>{"name":"a"}</tool_call>`,
			calls:    []Call{{Name: "a", Arguments: `{}`}},
			errs:     []error{ErrShadowed},
			errNames: []string{"b"},
		},
		{
			name:     "gemma used when standard is malformed",
			reply:    `<tool_call>oops</tool_call><|tool_call>call:b{}<tool_call|><|tool_call|>call:c{}<|/tool_call|>`,
			calls:    []Call{{Name: "b", Arguments: `{}`}},
			errs:     []error{ErrMalformed, ErrShadowed},
			errNames: []string{"", "c"},
		},
		{
			name:     "malformed block reported, good one kept",
			reply:    `<tool_call>{"name":"a","args":{"x":}}</tool_call> ok <tool_call>{"name":"b"}</tool_call>`,
			text:     "ok",
			calls:    []Call{{Name: "b", Arguments: `{}`}},
			errs:     []error{ErrMalformed},
			errNames: []string{"a"},
		},
		{
			name:  "unterminated but complete call is run",
			reply: "Running.\n<tool_call>{\"name\":\"run\",\"args\":{\"command\":\"ls\"}}\n",
			text:  "Running.",
			calls: []Call{{Name: "run", Arguments: `{"command":"ls"}`}},
		},
		{
			name:  "unterminated and cut off",
			reply: "Running.\n<tool_call>{\"name\":\"run\",\"args\":{\"comm",
			text:  "Running.",
			errs:  []error{ErrUnterminated},
		},
		{
			name:  "open tag inside a block is content",
			reply: `<tool_call>{"name":"a"}<tool_call>{"name":"b"}</tool_call>`,
			errs:  []error{ErrMalformed},
		},
		{
			name:     "parameters is not guessed",
			reply:    `<tool_call>{"name":"a","parameters":{"x":1}}</tool_call>`,
			errs:     []error{ErrMalformed},
			errNames: []string{"a"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Parse(tt.reply)
			requireEqual(t, r.Text, tt.text)
			requireEqual(t, r.Thinking, tt.think)
			requireEqual(t, callsOf(r), tt.calls)
			if len(r.Errors) != len(tt.errs) {
				t.Fatalf("errors %v, want %d", r.Errors, len(tt.errs))
			}
			for i, want := range tt.errs {
				if !errors.Is(r.Errors[i], want) {
					t.Errorf("error %d = %v, want %v", i, r.Errors[i], want)
				}
				if i < len(tt.errNames) && r.Errors[i].Name != tt.errNames[i] {
					t.Errorf("error %d names %q, want %q", i, r.Errors[i].Name, tt.errNames[i])
				}
				if !strings.Contains(tt.reply, r.Errors[i].Raw) || r.Errors[i].Raw == "" {
					t.Errorf("error %d raw %q is not a block of the reply", i, r.Errors[i].Raw)
				}
			}
			requireEqual(t, r.Final(), len(tt.calls) == 0 && len(tt.errs) == 0)
		})
	}
}

func TestParseMalformedInner(t *testing.T) {
	tests := []struct {
		inner, wantMsg string
	}{
		{``, "empty block"},
		{`read_file /tmp/x`, `expected {"name"`},
		{`{"args":{}}`, `missing "name"`},
		{`{"name":3}`, `"name" must be a string`},
		{`{"name":"  "}`, `"name" is empty`},
		{`{"name":"a","args":[1]}`, "must be a JSON object"},
		{`{"name":"a","args":"not json"}`, "arguments string"},
		{`{"name":"a","args":{},"arguments":{}}`, `both "args" and "arguments"`},
		{`{'name':'a'}`, "expected an object key"},
		{`{"name":"a"} trailing`, "after the value"},
		{`{"name":"a","args":{"s":"line
break"}}`, "control character"},
		{`call:run`, "needs {...} arguments"},
		{`call:{x:1}`, "missing tool name"},
		{`call:two words{}`, "invalid tool name"},
		{`call:run{command: ls}`, "expected a value"},
		{`call:run{"a":1} extra`, "after the value"},
	}
	for _, tt := range tests {
		t.Run(tt.inner, func(t *testing.T) {
			r := Parse("<tool_call>" + tt.inner + "</tool_call>")
			if len(r.Calls) != 0 || len(r.Errors) != 1 {
				t.Fatalf("calls %v errors %v, want one error", r.Calls, r.Errors)
			}
			if !errors.Is(r.Errors[0], ErrMalformed) || !strings.Contains(r.Errors[0].Error(), tt.wantMsg) {
				t.Fatalf("error %q, want ErrMalformed containing %q", r.Errors[0], tt.wantMsg)
			}
		})
	}
}

func TestBlockErrorResult(t *testing.T) {
	r := Parse(`<tool_call>{"name":"run","args":{x:}}</tool_call><|tool_call>call:ls{}<tool_call|><tool_call>{"name":"ok"}</tool_call>`)
	if len(r.Errors) != 2 {
		t.Fatalf("errors %v", r.Errors)
	}
	got := FormatResults([]ToolResult{r.Errors[0].Result(), r.Errors[1].Result()})
	want := "Tool results:\n\n" +
		"[run] Error: malformed tool call: invalid json at offset 24: expected a value, found '}'. Expected " + callExample + "\n\n" +
		"[ls] Error: tool call ignored: standard blocks in the same reply take precedence"
	requireEqual(t, got, want)

	noName := BlockError{Format: FormatPipe, Err: fmt.Errorf("%w: missing x", ErrUnterminated)}
	requireEqual(t, noName.Result().Name, "tool_call")
	requireEqual(t, noName.Error(), "pipe block: unterminated tool call: missing x")
}
