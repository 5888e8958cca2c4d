package openai

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/troupehq/troupe/runtime/jsontext"
	"github.com/troupehq/troupe/runtime/llm"
)

// projection is what a frame means, independent of how it was read.
type projection struct {
	Text, Thinking string
	Args           map[int]string
	IDs, Names     map[int]string
	Finish         string
	HasFinish      bool
	Usage          llm.Usage
	HasUsage       bool
	HasError       bool
}

func project(f *frame) projection {
	p := projection{Args: map[int]string{}, IDs: map[int]string{}, Names: map[int]string{},
		Finish: string(f.finish), HasFinish: f.hasFinish, Usage: f.usage, HasUsage: f.hasUsage, HasError: f.hasError}
	for _, pt := range f.parts {
		switch pt.kind {
		case llm.ChunkText:
			p.Text += string(pt.text)
		case llm.ChunkThinking:
			p.Thinking += string(pt.text)
		case llm.ChunkToolCall:
			p.Args[pt.index] += string(pt.text)
			if len(pt.id) > 0 {
				p.IDs[pt.index] = string(pt.id)
			}
			if len(pt.name) > 0 {
				p.Names[pt.index] = string(pt.name)
			}
		}
	}
	return p
}

type rawObject = map[string]json.RawMessage

// referenceProject reads a frame with encoding/json, with exact-case keys.
// ok is false when the frame uses a shape the reference does not model
// (wrong types, duplicate keys, both reasoning fields), where only the
// absence of panics is checked.
func referenceProject(data []byte) (p projection, ok bool) {
	p = projection{Args: map[int]string{}, IDs: map[int]string{}, Names: map[int]string{}}
	var top rawObject
	if json.Unmarshal(data, &top) != nil || top == nil || hasDuplicateKeys(data) {
		return p, false
	}
	if _, isErr := top["error"]; isErr {
		p.HasError = true
		return p, true
	}
	str := func(raw json.RawMessage) (string, bool) {
		var s *string
		if raw == nil {
			return "", true
		}
		if json.Unmarshal(raw, &s) != nil {
			return "", false
		}
		if s == nil {
			return "", true
		}
		return *s, true
	}
	obj := func(raw json.RawMessage) (rawObject, bool) {
		var o rawObject
		if raw == nil {
			return nil, true
		}
		return o, json.Unmarshal(raw, &o) == nil
	}
	if raw := top["choices"]; raw != nil {
		var choices []json.RawMessage
		if json.Unmarshal(raw, &choices) != nil {
			return p, false
		}
		if len(choices) > 0 {
			choice, ok := obj(choices[0])
			if !ok {
				return p, false
			}
			if fr, ok := str(choice["finish_reason"]); !ok {
				return p, false
			} else if choice["finish_reason"] != nil && string(choice["finish_reason"]) != "null" {
				p.Finish, p.HasFinish = fr, true
			}
			delta, ok := obj(choice["delta"])
			if !ok {
				return p, false
			}
			if delta["reasoning"] != nil && delta["reasoning_content"] != nil {
				return p, false
			}
			var good [3]bool
			p.Text, good[0] = str(delta["content"])
			rc, ok1 := str(delta["reasoning_content"])
			r, ok2 := str(delta["reasoning"])
			p.Thinking, good[1] = rc+r, ok1 && ok2
			good[2] = true
			if raw := delta["tool_calls"]; raw != nil && string(raw) != "null" {
				var calls []json.RawMessage
				good[2] = json.Unmarshal(raw, &calls) == nil
				for i, c := range calls {
					var tc struct {
						Index    *int   `json:"index"`
						ID       string `json:"id"`
						Function struct {
							Name      string `json:"name"`
							Arguments string `json:"arguments"`
						} `json:"function"`
					}
					if strings.ContainsAny(string(c), "ABCDEFGHIJKLMNOPQRSTUVWXYZ") || json.Unmarshal(c, &tc) != nil {
						return p, false // case-folded keys or other shapes
					}
					idx := i
					if tc.Index != nil {
						idx = *tc.Index
					}
					p.Args[idx] += tc.Function.Arguments
					if tc.ID != "" {
						p.IDs[idx] = tc.ID
					}
					if tc.Function.Name != "" {
						p.Names[idx] = tc.Function.Name
					}
				}
			}
			if !good[0] || !good[1] || !good[2] {
				return p, false
			}
		}
	}
	if raw := top["usage"]; raw != nil && string(raw) != "null" {
		var u struct {
			P int `json:"prompt_tokens"`
			C int `json:"completion_tokens"`
			T int `json:"total_tokens"`
			D *struct {
				Cached int `json:"cached_tokens"`
			} `json:"prompt_tokens_details"`
		}
		if strings.ContainsAny(string(raw), "ABCDEFGHIJKLMNOPQRSTUVWXYZ") || json.Unmarshal(raw, &u) != nil {
			return p, false
		}
		p.Usage, p.HasUsage = llm.Usage{PromptTokens: u.P, CompletionTokens: u.C, TotalTokens: u.T}, true
		if u.D != nil {
			p.Usage.CachedTokens = u.D.Cached
		}
	}
	return p, true
}

func hasDuplicateKeys(data []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	type level struct {
		obj  bool
		key  bool
		seen map[string]bool
	}
	var stack []*level
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		var top *level
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && top.obj && top.key {
			if s, ok := tok.(string); ok {
				if top.seen[s] {
					return true
				}
				top.seen[s] = true
				top.key = false
				continue
			}
		}
		switch tok {
		case json.Delim('{'):
			if top != nil {
				top.key = true
			}
			stack = append(stack, &level{obj: true, key: true, seen: map[string]bool{}})
			continue
		case json.Delim('['):
			if top != nil {
				top.key = true
			}
			stack = append(stack, &level{})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			continue
		}
		if top != nil {
			top.key = true
		}
	}
}

func fixtureFrames(tb testing.TB) [][]byte {
	var out [][]byte
	files, _ := filepath.Glob(filepath.Join(fixtureRoot, "*", "*.sse"))
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			tb.Fatal(err)
		}
		for _, line := range bytes.Split(b, []byte("\n")) {
			if d, ok := bytes.CutPrefix(line, []byte("data: ")); ok && string(d) != "[DONE]" {
				out = append(out, d)
			}
		}
	}
	return out
}

var frameSeeds = []string{
	`{"choices":[{"index":0,"delta":{"content":"a\nb\"c\\d\/e\u00e9\ud83d\ude00\ud800x"}}]}`,
	`{"choices":[{"index":0,"delta":{"reasoning_content":"hmm"}}]}`,
	`{"choices":[{"index":0,"delta":{"reasoning":"hmm"}}]}`,
	`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"x","type":"function","function":{"name":"f","arguments":"{\"a\":"}}]}}]}`,
	`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":{"a":1}}}]}}]}`,
	`{"choices":[null],"usage":null}`,
	`{"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2.0,"total_tokens":3,"prompt_tokens_details":{"cached_tokens":1}}}`,
	`{"error":{"code":500,"message":"boom","type":"server_error"}}`,
	` { "choices" : [ { "delta" : { "content" : "x" } , "finish_reason" : "stop" } ] } `,
	"{\"choices\":[{\"delta\":{\"content\":\"\xff\xfe\"}}]}",
	`{"choices":[{"delta":{"content":"x"}}`,
	`{"choices":[{"delta":{"content":"x"}}]} trailing`,
	`[1,2]`, `"x"`, ``, `{`, `{"a":tru}`, `{"a":[[[[[[`,
}

func TestParseFrameMatchesEncodingJSON(t *testing.T) {
	var s jsontext.Scanner
	var f frame
	inputs := append(fixtureFrames(t), nil)
	for _, seed := range frameSeeds {
		inputs = append(inputs, []byte(seed))
	}
	for _, in := range inputs {
		checkFrame(t, &s, &f, in)
	}
}

func FuzzParseFrame(f *testing.F) {
	for _, fr := range fixtureFrames(f) {
		f.Add(fr)
	}
	for _, seed := range frameSeeds {
		f.Add([]byte(seed))
	}
	var s jsontext.Scanner
	var fr frame
	f.Fuzz(func(t *testing.T, data []byte) {
		checkFrame(t, &s, &fr, data)
	})
}

func checkFrame(t *testing.T, s *jsontext.Scanner, f *frame, data []byte) {
	t.Helper()
	err := parseFrame(s, data, f)
	want, ok := referenceProject(data)
	if !ok {
		return
	}
	if err != nil {
		t.Fatalf("frame %q: encoding/json reads it, parseFrame says %v", data, err)
	}
	got := project(f)
	if want.HasError {
		if !got.HasError {
			t.Fatalf("frame %q: error frame not noticed", data)
		}
		return
	}
	requireEqual(t, got, want, "frame "+string(data))
}
