package fakellama

import (
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"
)

func do(t *testing.T, url, method, path, body string, header ...string) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, b
}

func serve(t *testing.T, opts Options) (*Server, string) {
	t.Helper()
	s := New(opts)
	hs := httptest.NewServer(s)
	t.Cleanup(hs.Close)
	return s, hs.URL
}

const hi = `{"model":"tiny","messages":[{"role":"user","content":"hi"}],"max_tokens":8,"temperature":0,"seed":1}`

func TestLoadingAnswers503OnEveryRouteThenServes(t *testing.T) {
	s, url := serve(t, Options{Alias: "tiny", LoadTime: 300 * time.Millisecond})
	for _, path := range []string{"/health", "/v1/models", "/props", "/slots", "/nonexistent"} {
		code, _, body := do(t, url, "GET", path, "")
		if code != 503 || string(body) != string(fixture(t, "health_loading.body")) {
			t.Fatalf("GET %s while loading: %d %s", path, code, body)
		}
	}
	for !s.Ready() {
		time.Sleep(10 * time.Millisecond)
	}
	code, _, body := do(t, url, "GET", "/health", "")
	if code != 200 || string(body) != `{"status":"ok"}` {
		t.Fatalf("GET /health when ready: %d %s", code, body)
	}
}

func TestRoutesHaveTheRealShapes(t *testing.T) {
	_, url := serve(t, Options{Alias: "tiny", ModelPath: "tiny-llama-random.gguf"})
	for _, c := range []struct{ method, path, body, fixture string }{
		{"GET", "/slots", "", "slots.body"},
		{"POST", "/v1/chat/completions", hi, "chat.body"},
		{"GET", "/nonexistent", "", "not_found.body"},
		{"POST", "/v1/chat/completions", `{"model":"tiny","messages":"hi"}`, "bad_body.body"},
		{"POST", "/v1/chat/completions", `{"messages":[{"role":"user","content":"` + strings.Repeat("hello ", 1500) + `"}]}`, "long_prompt.body"},
	} {
		_, _, body := do(t, url, c.method, c.path, c.body)
		if got, want := shape(t, body), shape(t, fixture(t, c.fixture)); got != want {
			t.Errorf("%s %s:\n got %s\nwant %s", c.method, c.path, got, want)
		}
	}
	// /v1/models and /props carry every key the real ones do, first of all
	// chat_template_caps, which clients read to pick a tool style.
	for path, fx := range map[string]string{"/v1/models": "models.body", "/props": "props.body"} {
		_, _, body := do(t, url, "GET", path, "")
		for _, key := range topKeys(t, fixture(t, fx)) {
			if key == "media_marker" || key == "ui" || key == "ui_settings" {
				continue // the web UI's, which a fake has none of
			}
			if !slices.Contains(topKeys(t, body), key) {
				t.Errorf("GET %s lacks %q: %s", path, key, body)
			}
		}
	}
}

func TestStreamsFrameForFrameLikeTheRealServer(t *testing.T) {
	_, url := serve(t, Options{Alias: "tiny"})
	for _, c := range []struct{ body, fixture string }{
		{strings.Replace(hi, `"max_tokens":8`, `"max_tokens":2,"stream":true`, 1), "chat_stream.sse"},
		{strings.Replace(hi, `"max_tokens":8`, `"max_tokens":2,"stream":true,"stream_options":{"include_usage":true}`, 1), "chat_stream_usage.sse"},
	} {
		code, h, body := do(t, url, "POST", "/v1/chat/completions", strings.Replace(c.body, `"hi"`, `"one two three"`, 1))
		if code != 200 || h.Get("Content-Type") != "text/event-stream" {
			t.Fatalf("%s: %d %s", c.fixture, code, h)
		}
		got, want := frameShapes(t, body), frameShapes(t, fixture(t, c.fixture))
		if !slices.Equal(got, want) {
			t.Errorf("%s frames:\n got %q\nwant %q", c.fixture, got, want)
		}
		if !strings.Contains(string(body), `"delta":{"content":" two"}`) || !strings.Contains(string(body), `"finish_reason":"length"`) {
			t.Errorf("%s: echo cut at max_tokens 2 not seen:\n%s", c.fixture, body)
		}
	}
}

func TestScriptedRepliesThenEcho(t *testing.T) {
	_, url := serve(t, Options{Replies: []Reply{
		{Content: "", ToolCalls: []ToolCall{{Name: "read", Arguments: `{"path":"a.txt"}`}}},
		{Status: 500, Content: "boom"},
	}})
	_, _, body := do(t, url, "POST", "/v1/chat/completions", strings.Replace(hi, `"seed":1`, `"seed":1,"stream":true`, 1))
	for _, want := range []string{`"function":{"name":"read","arguments":""}`, `"function":{"arguments":"{\"path\":\"a.txt\"}"}`, `"finish_reason":"tool_calls"`} {
		if !strings.Contains(string(body), want) {
			t.Errorf("tool call stream lacks %s:\n%s", want, body)
		}
	}
	code, _, body := do(t, url, "POST", "/v1/chat/completions", hi)
	if code != 500 || !strings.Contains(string(body), `"message":"boom"`) {
		t.Errorf("scripted error: %d %s", code, body)
	}
	_, _, body = do(t, url, "POST", "/v1/chat/completions", hi)
	if !strings.Contains(string(body), `"content":"hi"`) || !strings.Contains(string(body), `"finish_reason":"stop"`) {
		t.Errorf("echo after the script: %s", body)
	}
}

func TestAPIKeyGuardsAllButHealth(t *testing.T) {
	_, url := serve(t, Options{APIKeys: []string{"secret"}})
	if code, _, _ := do(t, url, "GET", "/health", ""); code != 200 {
		t.Errorf("/health without a key: %d", code)
	}
	code, _, body := do(t, url, "POST", "/v1/chat/completions", hi)
	if code != 401 || string(body) != string(fixture(t, "apikey_chat_nokey.body")) {
		t.Errorf("no key: %d %s", code, body)
	}
	for _, h := range [][]string{{"Authorization", "Bearer secret"}, {"X-Api-Key", "secret"}} {
		if code, _, body := do(t, url, "POST", "/v1/chat/completions", hi, h...); code != 200 {
			t.Errorf("%s: %d %s", h[0], code, body)
		}
	}
	if code, _, _ := do(t, url, "GET", "/v1/models", "", "Authorization", "Bearer wrong"); code != 401 {
		t.Errorf("wrong key: %d", code)
	}
}
