package openai

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/troupehq/troupe/runtime/llm"
)

// fixtureRoot holds real exchanges with two llama-server builds (see its
// README.md): recorded data, kept in the repository so a clone tests alone.
var fixtureRoot = filepath.Join("testdata", "llama-server")

type fixture struct {
	dir             string
	Name            string   `json:"name"`
	Method          string   `json:"method"`
	Path            string   `json:"path"`
	RequestHeaders  []string `json:"request_headers"`
	RequestBody     *string  `json:"request_body"`
	Status          int      `json:"status"`
	ResponseHeaders string   `json:"response_headers"`
	ResponseBody    string   `json:"response_body"`
}

func (f fixture) key() string             { return f.dir + "/" + f.Name }
func (f fixture) file(name string) string { return filepath.Join(fixtureRoot, f.dir, name) }

func loadFixtures(t *testing.T) []fixture {
	t.Helper()
	var all []fixture
	for _, dir := range []string{"old", "new"} {
		b, err := os.ReadFile(filepath.Join(fixtureRoot, dir, "manifest.json"))
		if err != nil {
			t.Fatalf("read fixture manifest: %v", err)
		}
		var fs []fixture
		requireNoError(t, json.Unmarshal(b, &fs))
		for i := range fs {
			fs[i].dir = dir
		}
		all = append(all, fs...)
	}
	return all
}

// authHeaders are the request headers the recorded server judged by.
func (f fixture) authHeaders() map[string]string {
	h := map[string]string{}
	for _, l := range f.RequestHeaders {
		k, v, _ := strings.Cut(l, ": ")
		if k == "Authorization" || k == "X-Api-Key" {
			h[k] = v
		}
	}
	return h
}

// replayServer answers /<dir>/<name>/<recorded path> with the recorded
// status, headers and body bytes, after checking that the client sent what
// curl sent: same method, path, auth headers and request body (apart from
// the fields troupe does not send).
func replayServer(t *testing.T, fixtures []fixture) *httptest.Server {
	byKey := map[string]fixture{}
	for _, f := range fixtures {
		byKey[f.key()] = f
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		parts := strings.SplitN(r.URL.Path, "/", 4)
		if len(parts) < 4 {
			http.Error(w, "no fixture in path", 599)
			return
		}
		f, ok := byKey[parts[1]+"/"+parts[2]]
		if !ok || r.Method != f.Method || "/"+parts[3] != f.Path {
			http.Error(w, fmt.Sprintf("fixture %s/%s is %s %s, got %s %s", parts[1], parts[2], f.Method, f.Path, r.Method, "/"+parts[3]), 599)
			return
		}
		if msg := checkRecordedRequest(f, r); msg != "" {
			http.Error(w, msg, 599)
			return
		}
		writeRecordedResponse(t, w, f)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func checkRecordedRequest(f fixture, r *http.Request) string {
	want := f.authHeaders()
	for _, k := range []string{"Authorization", "X-Api-Key"} {
		if got := r.Header.Get(k); got != want[k] {
			return fmt.Sprintf("header %s: got %q, want %q", k, got, want[k])
		}
	}
	if f.RequestBody == nil {
		return ""
	}
	recorded, err := os.ReadFile(f.file(*f.RequestBody))
	if err != nil {
		return err.Error()
	}
	var got, rec map[string]any
	if err := json.NewDecoder(r.Body).Decode(&got); err != nil {
		return "request body: " + err.Error()
	}
	if unproducible[f.Name] {
		return ""
	}
	if err := json.Unmarshal(recorded, &rec); err != nil {
		return "recorded request: " + err.Error()
	}
	for _, k := range []string{"model", "messages", "max_tokens", "temperature", "stream", "tools"} {
		if g, w := jsonText(got[k]), jsonText(rec[k]); g != w {
			return fmt.Sprintf("request %s: got %s, recorded %s", k, g, w)
		}
	}
	return ""
}

// unproducible are recordings of request bodies the client cannot send
// (broken JSON, messages as a string); the plain chat request stands in.
var unproducible = map[string]bool{"bad_json": true, "bad_body": true}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func writeRecordedResponse(t *testing.T, w http.ResponseWriter, f fixture) {
	head, err := os.ReadFile(f.file(f.ResponseHeaders))
	if err != nil {
		t.Errorf("%s: %v", f.key(), err)
		return
	}
	body, err := os.ReadFile(f.file(f.ResponseBody))
	if err != nil {
		t.Errorf("%s: %v", f.key(), err)
		return
	}
	lines := strings.Split(strings.TrimRight(string(head), "\r\n"), "\r\n")
	status, err := strconv.Atoi(strings.Fields(lines[0])[1])
	if err != nil {
		t.Errorf("%s: status line %q", f.key(), lines[0])
		return
	}
	for _, l := range lines[1:] {
		k, v, _ := strings.Cut(l, ":")
		switch http.CanonicalHeaderKey(k) {
		case "Transfer-Encoding", "Content-Length", "Keep-Alive", "Connection":
			// Framing belongs to this server's connection, not the recording.
			continue
		}
		w.Header()[http.CanonicalHeaderKey(k)] = append(w.Header()[http.CanonicalHeaderKey(k)], strings.TrimSpace(v))
	}
	w.WriteHeader(status)
	if !strings.HasSuffix(f.ResponseBody, ".sse") {
		_, _ = w.Write(body)
		return
	}
	// Frame by frame, flushed, as the server streamed it.
	for len(body) > 0 {
		n := bytes.Index(body, []byte("\n\n"))
		if n < 0 {
			n = len(body)
		} else {
			n += 2
		}
		_, _ = w.Write(body[:n])
		w.(http.Flusher).Flush()
		body = body[n:]
	}
}

// requestFromRecording rebuilds the llm.Request that encodes to the
// recorded body.
func requestFromRecording(t *testing.T, f fixture) llm.Request {
	t.Helper()
	raw, err := os.ReadFile(f.file(*f.RequestBody))
	requireNoError(t, err)
	if unproducible[f.Name] {
		return llm.Request{Model: "tiny", Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}
	}
	var rec struct {
		Model    string `json:"model"`
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
		MaxTokens   int      `json:"max_tokens"`
		Temperature *float64 `json:"temperature"`
		Stream      bool     `json:"stream"`
		Tools       []struct {
			Function struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				Parameters  json.RawMessage `json:"parameters"`
			} `json:"function"`
		} `json:"tools"`
	}
	requireNoError(t, json.Unmarshal(raw, &rec))
	req := llm.Request{Model: rec.Model, MaxTokens: rec.MaxTokens, Temperature: rec.Temperature, Stream: rec.Stream}
	for _, m := range rec.Messages {
		req.Messages = append(req.Messages, llm.Message{Role: llm.Role(m.Role), Content: m.Content})
	}
	for _, tl := range rec.Tools {
		req.Tools = append(req.Tools, llm.ToolDef{Name: tl.Function.Name, Description: tl.Function.Description, Parameters: tl.Function.Parameters})
	}
	return req
}

// wantError is the classification each recorded failure must get.
type wantError struct {
	status             int
	typ                string
	retryable          bool
	overflow           bool
	promptTokens, nCtx int
}

var fixtureErrors = map[string]wantError{
	"old/health_loading":         {503, "unavailable_error", true, false, 0, 0},
	"old/models_loading":         {503, "unavailable_error", true, false, 0, 0},
	"old/tools_stream":           {500, "server_error", false, false, 0, 0},
	"old/tools_unbounded_stream": {500, "server_error", false, false, 0, 0},
	"old/bad_json":               {500, "server_error", false, false, 0, 0},
	"old/bad_body":               {500, "server_error", false, false, 0, 0},
	"old/not_found":              {404, "not_found_error", false, false, 0, 0},
	"old/apikey_chat_nokey":      {401, "authentication_error", false, false, 0, 0},
	"old/apikey_chat_wrongkey":   {401, "authentication_error", false, false, 0, 0},
	"old/apikey_chat_xapikey":    {401, "authentication_error", false, false, 0, 0},
	"old/apikey_slots":           {501, "not_supported_error", false, false, 0, 0},
	"old/apikey_metrics":         {501, "not_supported_error", false, false, 0, 0},
	"new/health_loading":         {503, "unavailable_error", true, false, 0, 0},
	"new/models_loading":         {503, "unavailable_error", true, false, 0, 0},
	"new/bad_json":               {500, "server_error", false, false, 0, 0},
	"new/bad_body":               {400, "invalid_request_error", false, false, 0, 0},
	"new/not_found":              {404, "not_found_error", false, false, 0, 0},
	"new/long_prompt":            {400, "exceed_context_size_error", false, true, 1528, 1024},
	"new/long_prompt_stream":     {400, "exceed_context_size_error", false, true, 1528, 1024},
	"new/apikey_models_nokey":    {401, "authentication_error", false, false, 0, 0},
	"new/apikey_chat_nokey":      {401, "authentication_error", false, false, 0, 0},
	"new/apikey_chat_wrongkey":   {401, "authentication_error", false, false, 0, 0},
	"new/apikey_metrics":         {501, "not_supported_error", false, false, 0, 0},
}

const tinyReply = "alph zesificate successo status heutigenโgele"

// fixtureFacts are checks written by hand from the README, so a mistake
// shared by the client and the reference decoder below still shows.
var fixtureFacts = map[string]func(t *testing.T, chunks []llm.Chunk, r *llm.Response){
	"old/chat": func(t *testing.T, _ []llm.Chunk, r *llm.Response) {
		requireEqual(t, r.Message.Content, tinyReply, "content")
		requireEqual(t, r.Usage, &llm.Usage{PromptTokens: 29, CompletionTokens: 8, TotalTokens: 37}, "usage")
	},
	"new/chat": func(t *testing.T, _ []llm.Chunk, r *llm.Response) {
		requireEqual(t, r.Message.Content, tinyReply, "content")
		requireEqual(t, r.FinishReason, llm.FinishLength, "finish")
	},
	"old/chat_stream": func(t *testing.T, c []llm.Chunk, r *llm.Response) {
		requireEqual(t, c[0], llm.Chunk{Kind: llm.ChunkText, Text: "alph"}, "first chunk (no role chunk in old)")
		requireEqual(t, r.Message.Content, tinyReply, "content")
		requireEqual(t, r.Usage, &llm.Usage{PromptTokens: 29, CompletionTokens: 8, TotalTokens: 37}, "usage on the finish chunk")
	},
	"new/chat_stream": func(t *testing.T, c []llm.Chunk, r *llm.Response) {
		requireEqual(t, c[0], llm.Chunk{Kind: llm.ChunkText, Text: "alph"}, "first chunk (role chunk yields nothing)")
		requireEqual(t, r.Message.Content, tinyReply, "content")
		if r.Usage != nil {
			t.Fatalf("new without include_usage reports no usage, got %+v", r.Usage)
		}
		requireEqual(t, r.FinishReason, llm.FinishLength, "finish")
	},
	"new/chat_stream_usage": func(t *testing.T, c []llm.Chunk, r *llm.Response) {
		want := llm.Usage{PromptTokens: 29, CompletionTokens: 8, TotalTokens: 37, CachedTokens: 28}
		requireEqual(t, c[len(c)-1], llm.Chunk{Kind: llm.ChunkUsage, Usage: want}, "usage chunk from choices:[] frame")
		requireEqual(t, r.Usage, &want, "usage")
	},
	"old/tools": func(t *testing.T, c []llm.Chunk, r *llm.Response) {
		requireEqual(t, r.Message.ToolCalls, []llm.ToolCall{{ID: "call_0", Name: "get_weather", Arguments: `{"city":" VARCHAR"}`}}, "tool calls (empty id replaced)")
		requireEqual(t, r.Message.Content, "", "content")
		requireEqual(t, r.FinishReason, llm.FinishToolCalls, "finish")
		requireEqual(t, c[0], llm.Chunk{Kind: llm.ChunkToolCall, ToolCall: llm.ToolCallDelta{ID: "call_0", Name: "get_weather", ArgumentsDelta: `{"city":" VARCHAR"}`}}, "tool call chunk")
	},
	"old/tools_unbounded": func(t *testing.T, _ []llm.Chunk, r *llm.Response) {
		if !strings.HasPrefix(r.Message.Content, `{"tool_call": {`) || len(r.Message.ToolCalls) != 0 {
			t.Fatalf("want raw grammar JSON as content and no tool calls, got %+v", r.Message)
		}
	},
	"new/ctx_fill": func(t *testing.T, _ []llm.Chunk, r *llm.Response) {
		requireEqual(t, r.FinishReason, llm.FinishLength, "finish")
		requireEqual(t, r.Usage.TotalTokens, 1024, "total tokens (context full)")
	},
	"old/long_prompt_stream": func(t *testing.T, _ []llm.Chunk, r *llm.Response) {
		requireEqual(t, r.Usage.PromptTokens, 1016, "truncated prompt tokens")
	},
}

func TestFixtureReplay(t *testing.T) {
	fixtures := loadFixtures(t)
	srv := replayServer(t, fixtures)
	seen := map[string]bool{}
	for _, f := range fixtures {
		t.Run(f.key(), func(t *testing.T) {
			cfg := Config{BaseURL: srv.URL + "/" + f.key()}
			for k, v := range f.authHeaders() {
				if k == "Authorization" {
					cfg.APIKey = strings.TrimPrefix(v, "Bearer ")
				} else {
					cfg.Headers = map[string]string{k: v}
				}
			}
			c := newTestClient(t, cfg)
			err := replayOne(t, c, f)
			want, isErr := fixtureErrors[f.key()]
			if !isErr {
				requireNoError(t, err)
				return
			}
			e := requireLLMError(t, err)
			got := wantError{e.Status, e.Type, e.Retryable, e.ContextOverflow, e.PromptTokens, e.ContextSize}
			requireEqual(t, got, want, "classified error")
			if e.Message == "" {
				t.Fatal("error without the server's message")
			}
			seen[f.key()] = true
		})
	}
	for k := range fixtureErrors {
		if !seen[k] {
			t.Errorf("expected error fixture %s was not replayed or did not fail", k)
		}
	}
}

// replayOne makes the call that matches the recorded request and checks a
// successful answer; it returns the call's error for the caller to judge.
func replayOne(t *testing.T, c *Client, f fixture) error {
	ctx := context.Background()
	switch f.Path {
	case "/v1/chat/completions":
		var chunks []llm.Chunk
		resp, err := c.Stream(ctx, requestFromRecording(t, f), collect(&chunks))
		if err != nil {
			return err
		}
		checkAgainstReference(t, f, chunks, resp)
		if fact := fixtureFacts[f.key()]; fact != nil {
			fact(t, chunks, resp)
		}
		return nil
	case "/v1/models":
		ids, err := c.Models(ctx)
		if err == nil {
			requireEqual(t, ids, []string{"tiny"}, "model ids")
		}
		return err
	case "/props":
		p, err := c.Props(ctx)
		if err != nil {
			return err
		}
		requireEqual(t, p.ContextSize, 1024, "n_ctx")
		requireEqual(t, p.TotalSlots, 1, "total slots")
		if f.dir == "old" {
			if p.SupportsToolCalls != nil {
				t.Fatalf("old /props has no chat_template_caps: want unknown, got %v", *p.SupportsToolCalls)
			}
		} else {
			if p.SupportsToolCalls == nil || *p.SupportsToolCalls {
				t.Fatalf("new /props says supports_tool_calls false, got %v", p.SupportsToolCalls)
			}
			requireEqual(t, p.ModelAlias, "tiny", "alias")
		}
		return nil
	case "/health":
		return c.Health(ctx)
	default:
		// Endpoints the client has no method for (slots, metrics, unknown
		// paths) still go through the shared error classification.
		return c.getJSON(ctx, c.serverRoot+f.Path, nil)
	}
}

// checkAgainstReference decodes the recorded answer independently, with
// encoding/json, and compares chunks and the assembled reply.
func checkAgainstReference(t *testing.T, f fixture, chunks []llm.Chunk, resp *llm.Response) {
	t.Helper()
	body, err := os.ReadFile(f.file(f.ResponseBody))
	requireNoError(t, err)
	var want []llm.Chunk
	var finish string
	if strings.HasSuffix(f.ResponseBody, ".sse") {
		sc := bufio.NewScanner(bytes.NewReader(body))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			line, ok := strings.CutPrefix(sc.Text(), "data: ")
			if !ok || line == "[DONE]" {
				continue
			}
			want = append(want, referenceChunks(t, []byte(line), "delta", &finish)...)
		}
	} else {
		want = referenceChunks(t, body, "message", &finish)
	}
	requireEqual(t, chunks, want, "chunks")
	var text strings.Builder
	var usage *llm.Usage
	for _, c := range want {
		switch c.Kind {
		case llm.ChunkText:
			text.WriteString(c.Text)
		case llm.ChunkUsage:
			u := c.Usage
			usage = &u
		}
	}
	requireEqual(t, resp.Message.Content, text.String(), "assembled content")
	requireEqual(t, resp.FinishReason, llm.FinishReason(finish), "finish reason")
	requireEqual(t, resp.Usage, usage, "usage")
	requireEqual(t, resp.Message.Role, llm.RoleAssistant, "role")
}

func referenceChunks(t *testing.T, data []byte, field string, finish *string) []llm.Chunk {
	var v struct {
		Choices []map[string]json.RawMessage `json:"choices"`
		Usage   *struct {
			Prompt     int `json:"prompt_tokens"`
			Completion int `json:"completion_tokens"`
			Total      int `json:"total_tokens"`
			Details    *struct {
				Cached int `json:"cached_tokens"`
			} `json:"prompt_tokens_details"`
		} `json:"usage"`
	}
	requireNoError(t, json.Unmarshal(data, &v))
	var out []llm.Chunk
	if len(v.Choices) > 0 {
		var d struct {
			Content   *string `json:"content"`
			ToolCalls []struct {
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		}
		requireNoError(t, json.Unmarshal(v.Choices[0][field], &d))
		if d.Content != nil && *d.Content != "" {
			out = append(out, llm.Chunk{Kind: llm.ChunkText, Text: *d.Content})
		}
		for i, tc := range d.ToolCalls {
			id := tc.ID
			if id == "" {
				id = "call_" + strconv.Itoa(i)
			}
			out = append(out, llm.Chunk{Kind: llm.ChunkToolCall, ToolCall: llm.ToolCallDelta{Index: i, ID: id, Name: tc.Function.Name, ArgumentsDelta: tc.Function.Arguments}})
		}
		if fr, ok := v.Choices[0]["finish_reason"]; ok && string(fr) != "null" {
			requireNoError(t, json.Unmarshal(fr, finish))
		}
	}
	if u := v.Usage; u != nil {
		c := llm.Chunk{Kind: llm.ChunkUsage, Usage: llm.Usage{PromptTokens: u.Prompt, CompletionTokens: u.Completion, TotalTokens: u.Total}}
		if u.Details != nil {
			c.Usage.CachedTokens = u.Details.Cached
		}
		out = append(out, c)
	}
	return out
}
