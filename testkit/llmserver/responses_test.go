package llmserver

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
)

const (
	respStreamReq   = `{"model":"gpt-5","input":[{"role":"user","content":"hi"}],"stream":true,"store":false,"include":["reasoning.encrypted_content"],"reasoning":{"effort":"low","summary":"auto"}}`
	respPlainReq    = `{"model":"gpt-5","input":"hi"}`
	respNoEncodeReq = `{"model":"gpt-5","input":"hi","stream":true}`
)

// responsesCases cover every step kind on the Responses wire, streamed and
// not; the golden files live in testdata/responses.
var responsesCases = []struct {
	name  string
	reply Reply
	req   string
}{
	{"stream_text_usage", Steps(Text("Hello"), Text(", world"), ReportUsage(Usage{PromptTokens: 29, CompletionTokens: 3, CachedTokens: 16})), respStreamReq},
	{"stream_thinking_text", Steps(Thinking("Let me think."), Thinking(" Done."), Text("Answer.")), respStreamReq},
	{"stream_thinking_not_included", Steps(Thinking("hmm"), Text("ok")), respNoEncodeReq},
	{"stream_parallel_tool_calls", Steps(
		Thinking("Two files."),
		ToolCall("call_a", "read_file", `{"path":"a"}`),
		ToolCallChunks("", "read_file", `{"path":`, `"b"}`),
	), respStreamReq},
	{"stream_finish_length", Steps(Text("cut"), Finish("length"), ReportUsage(Usage{PromptTokens: 5, CompletionTokens: 1})), respStreamReq},
	{"stream_keepalive_tokens", Steps(KeepAlive(), Tokens(3, " la"), Delay(time.Millisecond)), respStreamReq},
	{"stream_failed", Steps(Text("partial"), StreamError(APIError{Message: "The model failed to generate a response."})), respStreamReq},
	{"stream_failed_rate_limit", Steps(StreamError(APIError{Status: 429, Message: "Rate limit reached"})), respStreamReq},
	{"stream_disconnect", Steps(Text("partial"), Disconnect()), respStreamReq},
	{"http_error_rate_limit", Steps(HTTPError(APIError{Status: 429, Message: "Rate limit reached for requests", Header: map[string]string{"Retry-After": "2"}})), respStreamReq},
	{"http_error_context", Steps(HTTPError(APIError{
		Status: 400, Message: "Your input exceeds the context window of this model.",
		Extra: json.RawMessage(`{"code":"context_length_exceeded","param":"input"}`),
	})), respStreamReq},
	{"plain_text_tool_call", Steps(Thinking("x"), Text("Checking."), ToolCall("call_1", "run", `{}`), ReportUsage(Usage{PromptTokens: 3, CompletionTokens: 2})), respPlainReq},
	{"plain_stream_error", Steps(Text("partial"), StreamError(APIError{Status: 500, Message: "boom"})), respPlainReq},
}

func TestResponsesGolden(t *testing.T) {
	for _, c := range responsesCases {
		t.Run(c.name, func(t *testing.T) {
			s := startT(t, Script{Replies: []Reply{c.reply}})
			got := goldenText(do(t, http.MethodPost, s.URL()+"/v1/responses", c.req, nil))
			path := filepath.Join("testdata", "responses", c.name+".txt")
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
			if reqs := s.ResponsesRequests(); len(reqs) != 1 || reqs[0].Reply != 0 {
				t.Errorf("recorded %+v, want one request that took reply 0", reqs)
			}
		})
	}
}

func TestResponsesGoldenFilesAreAllUsed(t *testing.T) {
	names := map[string]bool{}
	for _, c := range responsesCases {
		names[c.name+".txt"] = true
	}
	entries, err := os.ReadDir(filepath.Join("testdata", "responses"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !names[e.Name()] {
			t.Errorf("testdata/responses/%s belongs to no case", e.Name())
		}
	}
}

// TestResponsesOfficialClientReadsTheStream checks the wire against
// OpenAI's own Go SDK: its event union and its accumulator must rebuild
// the reply the script describes.
func TestResponsesOfficialClientReadsTheStream(t *testing.T) {
	s := startT(t, Script{Replies: []Reply{Steps(
		Thinking("Plan."),
		Text("Hi"),
		ToolCall("call_7", "run", `{"cmd":"ls"}`),
		ReportUsage(Usage{PromptTokens: 12, CompletionTokens: 4, CachedTokens: 8}),
	)}})
	svc := responses.NewResponseService(option.WithBaseURL(s.URL()+"/v1/"), option.WithMaxRetries(0))
	stream := svc.NewStreaming(waitCtx(t), responses.ResponseNewParams{
		Model:   "gpt-5",
		Include: []responses.ResponseIncludable{responses.ResponseIncludableReasoningEncryptedContent},
	})
	var (
		final    responses.Response
		names    []string
		lastSeq  = int64(-1)
		textSeen string
	)
	for stream.Next() {
		ev := stream.Current()
		names = append(names, ev.Type)
		if ev.SequenceNumber != lastSeq+1 {
			t.Errorf("%s has sequence_number %d after %d", ev.Type, ev.SequenceNumber, lastSeq)
		}
		lastSeq = ev.SequenceNumber
		switch e := ev.AsAny().(type) {
		case responses.ResponseTextDeltaEvent:
			textSeen += e.Delta
		case responses.ResponseCompletedEvent:
			final = e.Response
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	if names[0] != "response.created" || names[len(names)-1] != "response.completed" {
		t.Errorf("events %v", names)
	}
	if textSeen != "Hi" || final.OutputText() != "Hi" {
		t.Errorf("text %q, output text %q", textSeen, final.OutputText())
	}
	if len(final.Output) != 3 {
		t.Fatalf("output %d items, want reasoning, message, function_call", len(final.Output))
	}
	rs := final.Output[0].AsReasoning()
	if rs.EncryptedContent != encryptedReasoning("Plan.") || len(rs.Summary) != 1 || rs.Summary[0].Text != "Plan." {
		t.Errorf("reasoning %+v", rs)
	}
	fc := final.Output[2].AsFunctionCall()
	if fc.CallID != "call_7" || fc.Name != "run" || fc.Arguments != `{"cmd":"ls"}` {
		t.Errorf("call %+v", fc)
	}
	u := final.Usage
	if u.InputTokens != 12 || u.OutputTokens != 4 || u.TotalTokens != 16 || u.InputTokensDetails.CachedTokens != 8 {
		t.Errorf("usage %+v", u)
	}
}

func TestResponsesRecordsAndAnswersInOrder(t *testing.T) {
	s := startT(t, Script{Replies: []Reply{Steps(Text("one")), Steps(Text("two"))}})
	for _, want := range []string{"one", "two"} {
		got := do(t, http.MethodPost, s.URL()+"/v1/responses", respPlainReq, nil)
		var body struct {
			Output []struct {
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"output"`
		}
		if err := json.Unmarshal(got.body, &body); err != nil {
			t.Fatal(err)
		}
		if len(body.Output) != 1 || body.Output[0].Content[0].Text != want {
			t.Errorf("answer %s, want %q", got.body, want)
		}
	}
	reqs, err := s.WaitResponsesRequests(context.Background(), 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(reqs) != 2 || reqs[1].JSON["model"] != "gpt-5" || len(s.ChatRequests()) != 0 {
		t.Errorf("recorded %d responses requests, %d chat", len(reqs), len(s.ChatRequests()))
	}
}
