package llmserver

import (
	"net/http"
	"strings"
	"testing"
)

const anthropicBody = `{"model":"claude-x","max_tokens":64,"stream":true,"messages":[{"role":"user","content":"hi"}]}`

func TestAnthropicStreamIsTheDocumentedEventSequence(t *testing.T) {
	s := startT(t, Script{Replies: []Reply{Steps(
		Thinking("hm"), Text("Hi"), ToolCall("toolu_1", "f", `{"a":1}`),
		ReportUsage(Usage{PromptTokens: 10, CachedTokens: 4, CacheWriteTokens: 2, CompletionTokens: 5}),
	)}})
	r := do(t, http.MethodPost, s.URL()+"/v1/messages", anthropicBody, nil)
	if r.status != 200 || r.header.Get("Content-Type") != "text/event-stream; charset=utf-8" {
		t.Fatalf("status %d, headers %v", r.status, r.header)
	}
	want := `event: message_start
data: {"type":"message_start","message":{"id":"` + anthropicID("msg_", 0, 0) + `","type":"message","role":"assistant","content":[],"model":"claude-x","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":4,"cache_creation_input_tokens":2,"cache_read_input_tokens":4,"output_tokens":1}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}

event: ping
data: {"type": "ping"}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"hm"}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"` + ThinkingSignature("hm") + `"}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: content_block_start
data: {"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Hi"}}

event: content_block_stop
data: {"type":"content_block_stop","index":1}

event: content_block_start
data: {"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_1","name":"f","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"a\":1}"}}

event: content_block_stop
data: {"type":"content_block_stop","index":2}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":5}}

event: message_stop
data: {"type":"message_stop"}

`
	if got := string(r.body); got != want {
		t.Errorf("stream:\n%s\nwant:\n%s", got, want)
	}
	if reqs := s.ChatRequests(); len(reqs) != 1 || reqs[0].Reply != 0 || reqs[0].Outcome != OutcomeOK {
		t.Errorf("recorded %+v", reqs)
	}
}

func TestAnthropicErrors(t *testing.T) {
	s := startT(t, Script{Replies: []Reply{
		Steps(HTTPError(APIError{Status: 529, Header: map[string]string{"Retry-After": "4"}})),
		Steps(Text("a"), StreamError(APIError{Status: 429, Message: "slow down"})),
	}})
	r := do(t, http.MethodPost, s.URL()+"/v1/messages", anthropicBody, nil)
	if r.status != 529 || r.header.Get("Retry-After") != "4" ||
		string(r.body) != `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}` {
		t.Errorf("http error %d %v %s", r.status, r.header, r.body)
	}
	r = do(t, http.MethodPost, s.URL()+"/v1/messages", anthropicBody, nil)
	if !strings.HasSuffix(string(r.body), "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",\"message\":\"slow down\"}}\n\n") {
		t.Errorf("stream error:\n%s", r.body)
	}
	r = do(t, http.MethodPost, s.URL()+"/v1/messages", `{"model":"m","stream":true,"messages":[]}`, nil)
	if r.status != 400 || !strings.Contains(string(r.body), `"invalid_request_error"`) || !strings.Contains(string(r.body), "max_tokens") {
		t.Errorf("missing max_tokens: %d %s", r.status, r.body)
	}
}

func TestBedrockRequiresASignature(t *testing.T) {
	s := startT(t, Script{Default: &Reply{Steps: []Step{Text("x")}}})
	r := do(t, http.MethodPost, s.URL()+"/model/anthropic.claude-x/invoke-with-response-stream", `{"anthropic_version":"bedrock-2023-05-31","max_tokens":5,"messages":[]}`, nil)
	if r.status != 403 || !strings.HasPrefix(r.header.Get("X-Amzn-Errortype"), "MissingAuthenticationTokenException:") {
		t.Errorf("unsigned: %d %v %s", r.status, r.header, r.body)
	}
}
