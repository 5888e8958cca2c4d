package llmserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// The files in testdata/llama-server-new are copies of real llama-server
// exchanges (troupe's shared fixtures, NEW build). These tests replay their
// content through a script and require the same bytes, apart from the
// values that change on every run of the real server.

var (
	reID      = regexp.MustCompile(`"id":"chatcmpl-[A-Za-z0-9]{32}"`)
	reCreated = regexp.MustCompile(`"created":[0-9]+`)
	reTimings = regexp.MustCompile(`"timings":\{[^}]*\}`)
)

func normalize(b []byte) string {
	b = reID.ReplaceAll(b, []byte(`"id":"chatcmpl-X"`))
	b = reCreated.ReplaceAll(b, []byte(`"created":0`))
	b = reTimings.ReplaceAll(b, []byte(`"timings":{}`))
	return string(b)
}

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "llama-server-new", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// replayScript rebuilds a reply from a recorded stream: its content deltas,
// finish reason and usage.
func replayScript(t *testing.T, sse []byte) Reply {
	t.Helper()
	var steps []Step
	var usage *Usage
	sc := bufio.NewScanner(bytes.NewReader(sse))
	for sc.Scan() {
		line, ok := bytes.CutPrefix(sc.Bytes(), []byte("data: "))
		if !ok || string(line) == "[DONE]" {
			continue
		}
		var c struct {
			Choices []struct {
				FinishReason *string `json:"finish_reason"`
				Delta        struct {
					Content *string `json:"content"`
				} `json:"delta"`
			} `json:"choices"`
			Usage *struct {
				CompletionTokens int `json:"completion_tokens"`
				PromptTokens     int `json:"prompt_tokens"`
				Details          struct {
					CachedTokens int `json:"cached_tokens"`
				} `json:"prompt_tokens_details"`
			} `json:"usage"`
		}
		if err := json.Unmarshal(line, &c); err != nil {
			t.Fatal(err)
		}
		if c.Usage != nil {
			usage = &Usage{PromptTokens: c.Usage.PromptTokens, CompletionTokens: c.Usage.CompletionTokens, CachedTokens: c.Usage.Details.CachedTokens}
		}
		for _, ch := range c.Choices {
			if ch.Delta.Content != nil {
				steps = append(steps, Text(*ch.Delta.Content))
			}
			if ch.FinishReason != nil {
				steps = append(steps, Finish(*ch.FinishReason))
			}
		}
	}
	if usage == nil {
		// The stream without include_usage reports none; the reply still
		// has usage, which llama-server turns into timings alone.
		usage = &Usage{PromptTokens: 29, CompletionTokens: 8, CachedTokens: 28}
	}
	return Steps(append(steps, ReportUsage(*usage))...)
}

func TestStreamMatchesLlamaServer(t *testing.T) {
	for _, name := range []string{"chat_stream", "chat_stream_usage"} {
		t.Run(name, func(t *testing.T) {
			want := fixture(t, name+".sse")
			s := startT(t, Script{Replies: []Reply{replayScript(t, want)}})
			got := postChat(t, s, string(fixture(t, name+".request.json")))
			if got.readErr != nil || got.status != http.StatusOK {
				t.Fatalf("status %d, err %v", got.status, got.readErr)
			}
			if g, w := normalize(got.body), normalize(want); g != w {
				t.Errorf("stream differs from llama-server\n got: %s\nwant: %s", g, w)
			}
			if ct := got.header.Get("Content-Type"); ct != "text/event-stream" {
				t.Errorf("Content-Type %q", ct)
			}
			if xb := got.header.Get("X-Accel-Buffering"); xb != "no" {
				t.Errorf("X-Accel-Buffering %q", xb)
			}
		})
	}
}

func TestCompletionMatchesLlamaServer(t *testing.T) {
	want := fixture(t, "chat.body")
	var body struct {
		Choices []struct {
			FinishReason string `json:"finish_reason"`
			Message      struct {
				Content string `json:"content"`
			} `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(want, &body); err != nil {
		t.Fatal(err)
	}
	s := startT(t, Script{Replies: []Reply{Steps(
		Text(body.Choices[0].Message.Content),
		Finish(body.Choices[0].FinishReason),
		ReportUsage(Usage{PromptTokens: 29, CompletionTokens: 8}),
	)}})
	got := postChat(t, s, string(fixture(t, "chat.request.json")))
	if g, w := normalize(got.body), normalize(want); g != w {
		t.Errorf("completion differs from llama-server\n got: %s\nwant: %s", g, w)
	}
	if ct := got.header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
}

func TestErrorBodiesMatchLlamaServer(t *testing.T) {
	cases := []struct {
		name, fixture string
		script        Script
		method, path  string
		body          string
		status        int
	}{
		{"loading", "health_loading.body", Script{Loading: 1}, http.MethodGet, "/health", "", 503},
		{"ready", "health_ready.body", Script{}, http.MethodGet, "/health", "", 200},
		{"not found", "not_found.body", Script{}, http.MethodGet, "/nonexistent", "", 404},
		{"bad body", "bad_body.body", Script{}, http.MethodPost, "/v1/chat/completions", string(fixture(t, "bad_body.request.json")), 400},
		{"no key", "apikey_chat_nokey.body", Script{APIKey: "secret"}, http.MethodPost, "/v1/chat/completions", string(fixture(t, "chat.request.json")), 401},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := startT(t, c.script)
			got := do(t, c.method, s.URL()+c.path, c.body, nil)
			if got.status != c.status {
				t.Errorf("status %d, want %d", got.status, c.status)
			}
			if want := fixture(t, c.fixture); !bytes.Equal(got.body, want) {
				t.Errorf("body\n got: %s\nwant: %s", got.body, want)
			}
		})
	}
}
