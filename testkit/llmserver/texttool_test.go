package llmserver

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestRenderTextToolCall(t *testing.T) {
	args := json.RawMessage(`{"path": "/tmp/x", "opts": {"n": 1, "deep": [true]}}`)
	cases := []struct {
		format TagFormat
		inner  InnerForm
		want   string
	}{
		{FormatQwen, InnerJSON, `<tool_call>{"name":"read_file","args":{"path":"/tmp/x","opts":{"n":1,"deep":[true]}}}</tool_call>`},
		{FormatQwen, InnerCall, `<tool_call>call:read_file{path: "/tmp/x", opts: {"n":1,"deep":[true]}}</tool_call>`},
		{FormatQwen, InnerCallJSON, `<tool_call>call:read_file{"path": "/tmp/x", "opts": {"n":1,"deep":[true]}}</tool_call>`},
		{FormatGemma, InnerJSON, `<|tool_call>{"name":"read_file","args":{"path":"/tmp/x","opts":{"n":1,"deep":[true]}}}<tool_call|>`},
		{FormatGemma, InnerCall, `<|tool_call>call:read_file{path: "/tmp/x", opts: {"n":1,"deep":[true]}}<tool_call|>`},
		{FormatGemma, InnerCallJSON, `<|tool_call>call:read_file{"path": "/tmp/x", "opts": {"n":1,"deep":[true]}}<tool_call|>`},
		{FormatPipe, InnerJSON, `<|tool_call|>{"name":"read_file","args":{"path":"/tmp/x","opts":{"n":1,"deep":[true]}}}<|/tool_call|>`},
		{FormatPipe, InnerCall, `<|tool_call|>call:read_file{path: "/tmp/x", opts: {"n":1,"deep":[true]}}<|/tool_call|>`},
		{FormatPipe, InnerCallJSON, `<|tool_call|>call:read_file{"path": "/tmp/x", "opts": {"n":1,"deep":[true]}}<|/tool_call|>`},
	}
	for _, c := range cases {
		got, err := RenderTextToolCall(c.format, c.inner, "read_file", args)
		if err != nil {
			t.Errorf("%s/%s: %v", c.format, c.inner, err)
			continue
		}
		if got != c.want {
			t.Errorf("%s/%s:\n got %s\nwant %s", c.format, c.inner, got, c.want)
		}
	}
}

// The examples of the hugind tool-calling spec, reproduced exactly.
func TestRenderTextToolCallSpecExamples(t *testing.T) {
	cases := []struct {
		format TagFormat
		inner  InnerForm
		name   string
		args   any
		want   string
	}{
		{FormatQwen, InnerJSON, "read_file", map[string]string{"path": "/tmp/foo.py"}, `<tool_call>{"name":"read_file","args":{"path":"/tmp/foo.py"}}</tool_call>`},
		{FormatGemma, InnerCall, "run", map[string]string{"command": "ls /Applications"}, `<|tool_call>call:run{command: "ls /Applications"}<tool_call|>`},
		{FormatPipe, InnerCallJSON, "read_file", map[string]string{"path": "/tmp/x"}, `<|tool_call|>call:read_file{"path": "/tmp/x"}<|/tool_call|>`},
		{FormatQwen, "", "noargs", nil, `<tool_call>{"name":"noargs","args":{}}</tool_call>`},
		{FormatGemma, InnerCall, "noargs", nil, `<|tool_call>call:noargs{}<tool_call|>`},
		{FormatQwen, InnerJSON, "html", map[string]string{"q": "a<b&c"}, `<tool_call>{"name":"html","args":{"q":"a<b&c"}}</tool_call>`},
	}
	for _, c := range cases {
		got, err := RenderTextToolCall(c.format, c.inner, c.name, c.args)
		if err != nil {
			t.Errorf("%s: %v", c.want, err)
			continue
		}
		if got != c.want {
			t.Errorf("got %s\nwant %s", got, c.want)
		}
	}
}

func TestRenderTextToolCallErrors(t *testing.T) {
	cases := []struct {
		format TagFormat
		inner  InnerForm
		name   string
		args   any
		want   string
	}{
		{"xml", InnerJSON, "a", nil, "unknown tag format"},
		{FormatQwen, "yaml", "a", nil, "unknown inner form"},
		{FormatQwen, InnerJSON, "", nil, "no name"},
		{FormatQwen, InnerJSON, "a", []int{1}, "must be a JSON object"},
		{FormatQwen, InnerJSON, "a", make(chan int), "marshal tool arguments"},
	}
	for _, c := range cases {
		_, err := RenderTextToolCall(c.format, c.inner, c.name, c.args)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s/%s/%v: err %v, want %q", c.format, c.inner, c.args, err, c.want)
		}
	}
}

func TestSplitTextKeepsRunes(t *testing.T) {
	s := "ab€cd✓"
	for n := 1; n <= len(s)+1; n++ {
		parts := splitText(s, n)
		if strings.Join(parts, "") != s {
			t.Fatalf("n=%d: parts %q do not join back", n, parts)
		}
		for _, p := range parts {
			if !utf8.ValidString(p) {
				t.Errorf("n=%d: part %q cuts a rune", n, p)
			}
			if len(p) > n && utf8.RuneCountInString(p) > 1 {
				t.Errorf("n=%d: part %q is longer than needed", n, p)
			}
		}
	}
}
