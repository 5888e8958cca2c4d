package llmserver

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

const yamlScript = `
model: qwen
context_size: 8192
supports_tool_calls: true
api_key: secret
loading: 2
replies:
  - steps:
      - thinking: "let me look"
      - text: "Hello"
      - tool_call: {id: call_1, name: read_file, arguments: {path: go.mod, n: 1}}
      - tool_call: {name: run, chunks: ['{"cmd":', '"ls"}']}
      - tool_call: {name: broken, arguments: '{"a":'}
      - text_tool_call: {format: qwen, inner: json, name: run, args: {z: 1, a: "<x>"}, split: 4}
      - usage: {prompt_tokens: 10, completion_tokens: 5, cached_tokens: 2, on: separate}
      - finish: tool_calls
  - steps:
      - delay: 50ms
      - http_error: {status: 429, message: slow down, header: {Retry-After: "1"}}
  - steps:
      - keepalive: true
      - text: partial
      - stream_error: {status: 400, message: full, type: exceed_context_size_error, extra: {n_prompt_tokens: 9, n_ctx: 4}}
  - steps:
      - text: partial
      - disconnect: true
default:
  steps: [{text: done}]
`

func strp(s string) *string { return &s }

func TestParseScriptYAML(t *testing.T) {
	got, err := ParseScript([]byte(yamlScript))
	if err != nil {
		t.Fatal(err)
	}
	d := Duration(50 * time.Millisecond)
	want := Script{
		Model: "qwen", ContextSize: 8192, SupportsToolCalls: true, APIKey: "secret", Loading: 2,
		Replies: []Reply{
			Steps(
				Thinking("let me look"),
				Text("Hello"),
				ToolCall("call_1", "read_file", `{"path":"go.mod","n":1}`),
				ToolCallChunks("", "run", `{"cmd":`, `"ls"}`),
				ToolCall("", "broken", `{"a":`),
				Step{TextToolCall: &TaggedCall{Format: FormatQwen, Inner: InnerJSON, Name: "run", Args: []byte(`{"z":1,"a":"<x>"}`), Split: 4}},
				ReportUsage(Usage{PromptTokens: 10, CompletionTokens: 5, CachedTokens: 2, On: UsageSeparate}),
				Finish("tool_calls"),
			),
			Steps(
				Step{Delay: &d},
				HTTPError(APIError{Status: 429, Message: "slow down", Header: map[string]string{"Retry-After": "1"}}),
			),
			Steps(
				KeepAlive(),
				Text("partial"),
				StreamError(APIError{Status: 400, Message: "full", Type: "exceed_context_size_error", Extra: []byte(`{"n_prompt_tokens":9,"n_ctx":4}`)}),
			),
			Steps(Text("partial"), Disconnect()),
		},
		Default: &Reply{Steps: []Step{{Text: strp("done")}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parsed script differs\n got %+v\nwant %+v", got, want)
	}
}

func TestParseScriptJSONMatchesYAML(t *testing.T) {
	js := `{"model":"m","replies":[{"steps":[{"text":"hi"},{"tool_call":{"id":"c","name":"f","arguments":{"b":2,"a":1}}},{"delay":"1s"}]}]}`
	got, err := ParseScript([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	if a := got.Replies[0].Steps[1].ToolCall.Arguments; a != `{"b":2,"a":1}` {
		t.Errorf("arguments %s: key order lost", a)
	}
	if d := time.Duration(*got.Replies[0].Steps[2].Delay); d != time.Second {
		t.Errorf("delay %s", d)
	}
}

func TestLoadScriptFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "script.yaml")
	if err := os.WriteFile(path, []byte(yamlScript), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := LoadScript(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Replies) != 4 || s.Default == nil {
		t.Errorf("loaded %d replies, default %v", len(s.Replies), s.Default)
	}
	if _, err := LoadScript(filepath.Join(dir, "missing.yaml")); err == nil || !strings.Contains(err.Error(), "read script") {
		t.Errorf("missing file: err %v", err)
	}
}

func TestParseScriptErrors(t *testing.T) {
	cases := []struct {
		name, src, want string
	}{
		{"empty", "", "script is empty"},
		{"not yaml", "replies: [", "parse yaml"},
		{"unknown key", "replies: []\nrepiles: []", `unknown field "repiles"`},
		{"unknown step key", "replies: [{steps: [{txt: hi}]}]", `unknown field "txt"`},
		{"two kinds", "replies: [{steps: [{text: hi, finish: stop}]}]", "reply 1: step 1 sets 2 kinds (text, finish)"},
		{"no kind", "replies: [{steps: [{disconnect: false}]}]", "step 1 sets 0 kinds"},
		{"bad delay", "replies: [{steps: [{delay: soon}]}]", "delay"},
		{"numeric delay", "replies: [{steps: [{delay: 5}]}]", "duration string"},
		{"bad format", "replies: [{steps: [{text_tool_call: {format: xml, name: a}}]}]", "unknown tag format"},
		{"bad placement", "replies: [{steps: [{usage: {on: middle}}]}]", "usage placement"},
		{"merge key", "a: &a {text: x}\nreplies: [{steps: [{<<: *a}]}]", "plain keys"},
		{"default checked", "default: {steps: [{finish: ''}]}", "default reply: step 1: finish reason is empty"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseScript([]byte(c.src))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err %v, want one containing %q", err, c.want)
			}
		})
	}
}

func TestStartRejectsBadSteps(t *testing.T) {
	cases := []struct {
		name  string
		steps []Step
		want  string
	}{
		{"http error after output", []Step{Text("a"), HTTPError(APIError{Status: 500})}, "before any output"},
		{"http error not last", []Step{HTTPError(APIError{Status: 500}), Delay(time.Millisecond)}, "must be the last step"},
		{"http error status", []Step{HTTPError(APIError{Status: 200})}, "not an HTTP error status"},
		{"http error extra", []Step{HTTPError(APIError{Status: 500, Extra: []byte(`[1]`)})}, "must be a JSON object"},
		{"stream error not last", []Step{StreamError(APIError{}), Text("a")}, "stream_error must be the last step"},
		{"disconnect not last", []Step{Disconnect(), Text("a")}, "disconnect must be the last step"},
		{"text after finish", []Step{Finish("stop"), Text("a")}, "text cannot follow finish"},
		{"two finishes", []Step{Finish("stop"), Finish("length")}, "finish cannot follow finish"},
		{"two usages", []Step{ReportUsage(Usage{}), ReportUsage(Usage{})}, "usage is set twice"},
		{"negative usage", []Step{ReportUsage(Usage{PromptTokens: -1})}, "negative count"},
		{"negative delay", []Step{Delay(-time.Second)}, "negative"},
		{"nameless tool call", []Step{ToolCall("", "", "{}")}, "tool_call has no name"},
		{"arguments and chunks", []Step{{ToolCall: &NativeCall{Name: "a", Arguments: "{}", Chunks: []string{"{}"}}}}, "both arguments and chunks"},
		{"text tool call marshal", []Step{TextToolCall(FormatQwen, InnerJSON, "a", func() {})}, "marshal tool arguments"},
		{"negative split", []Step{{TextToolCall: &TaggedCall{Format: FormatQwen, Name: "a", Split: -1}}}, "split -1 is negative"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := Start(Script{Replies: []Reply{Steps(Text("fine")), Steps(c.steps...)}})
			if err == nil {
				s.Close()
				t.Fatal("Start accepted the script")
			}
			if !strings.Contains(err.Error(), "reply 2: step") || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err %v, want one naming reply 2 and containing %q", err, c.want)
			}
		})
	}
}
