package llmserver

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

const geminiReq = `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`

// geminiGoldenCases cover every step kind on Gemini's routes, streamed and
// not; the golden files sit in testdata/golden-gemini in the same form as
// the chat ones.
var geminiGoldenCases = []struct {
	name   string
	reply  Reply
	stream bool
}{
	{"stream_text_usage", Steps(Text("Hello"), Text(", world"), ReportUsage(Usage{PromptTokens: 10, CompletionTokens: 7, ReasoningTokens: 3, CachedTokens: 4})), true},
	{"stream_thinking", Steps(Thinking("Let me think."), Text("Answer.")), true},
	{"stream_parallel_calls", Steps(Thinking("Two files."), ToolCall("", "read_file", `{"path":"a"}`), ToolCallChunks("fc_2", "read_file", `{"path":`, `"b"}`)), true},
	{"stream_text_then_call", Steps(Text("Checking."), ToolCall("", "run", `{"cmd":"ls <dir>"}`), Text("Done.")), true},
	{"stream_finish_length", Steps(Tokens(2, "la"), KeepAlive(), Finish("length")), true},
	{"stream_error", Steps(Text("partial"), StreamError(APIError{Status: 503, Message: "The model is overloaded."})), true},
	{"stream_disconnect", Steps(Text("partial"), Disconnect()), true},
	{"http_error_rate_limit", Steps(HTTPError(APIError{Status: 429, Message: "Resource has been exhausted (e.g. check quota).", Header: map[string]string{"Retry-After": "7"},
		Extra: json.RawMessage(`{"details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"7s"}]}`)})), true},
	{"plain_thinking_calls_usage", Steps(Thinking("hmm"), Text("Reading."), ToolCall("", "read_file", `{"path":"a"}`), ToolCall("", "run", `{"cmd":"ls"}`),
		ReportUsage(Usage{PromptTokens: 10, CompletionTokens: 5})), false},
	{"plain_stream_error", Steps(Text("partial"), StreamError(APIError{Status: 500, Message: "boom"})), false},
}

func TestGeminiGolden(t *testing.T) {
	for _, c := range geminiGoldenCases {
		t.Run(c.name, func(t *testing.T) {
			s := startT(t, Script{Replies: []Reply{c.reply}})
			url := s.URL() + "/v1beta/models/gemini-2.5-flash:generateContent"
			if c.stream {
				url = s.URL() + "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
			}
			got := goldenText(do(t, http.MethodPost, url, geminiReq, nil))
			path := filepath.Join("testdata", "golden-gemini", c.name+".txt")
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs (go test -update rewrites it)\n--- got\n%s\n--- want\n%s", path, got, want)
			}
		})
	}
}

func TestGeminiChecksTheKeyAndTheBody(t *testing.T) {
	s := startT(t, Script{APIKey: "k1,k2", Loading: 1, Default: &Reply{Steps: []Step{Text("ok")}}})
	url := s.URL() + "/v1beta/models/gemini-2.5-flash:generateContent"
	if got := do(t, http.MethodPost, url, geminiReq, map[string]string{"x-goog-api-key": "k1"}); got.status != 503 ||
		!bytes.Contains(got.body, []byte(`"status": "UNAVAILABLE"`)) {
		t.Errorf("loading: %d %s", got.status, got.body)
	}
	if got := do(t, http.MethodPost, url, geminiReq, map[string]string{"x-goog-api-key": "nope"}); got.status != 400 ||
		!bytes.Contains(got.body, []byte(`"reason": "API_KEY_INVALID"`)) {
		t.Errorf("bad key: %d %s", got.status, got.body)
	}
	if got := do(t, http.MethodPost, url+"?key=k2", geminiReq, nil); got.status != 200 {
		t.Errorf("key in the query: %d %s", got.status, got.body)
	}
	if got := do(t, http.MethodPost, url, `{"model":"x"}`, map[string]string{"x-goog-api-key": "k2"}); got.status != 400 ||
		!bytes.Contains(got.body, []byte(`"status": "INVALID_ARGUMENT"`)) {
		t.Errorf("no contents: %d %s", got.status, got.body)
	}
	reqs := s.ChatRequests()
	if len(reqs) != 4 || reqs[2].RawQuery != "key=k2" || reqs[2].Reply != DefaultReply {
		t.Errorf("recorded %+v", reqs)
	}
}
