package llmserver

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
)

// The Anthropic Messages wire format: POST /v1/messages answered with the
// event stream its API reference documents (message_start, then for each
// content block content_block_start, its deltas and content_block_stop, a
// ping after the first block opens, message_delta with the stop reason and
// output usage, message_stop), errors as {"type":"error","error":{...}}
// both as HTTP bodies and as a mid-stream "event: error". Bedrock and Vertex
// carry the same events (bedrock.go, vertex.go), so the reply is played by
// one anthropicPlay over a framer per platform.

// anthropicFramer is how one platform carries Anthropic events and errors.
type anthropicFramer interface {
	// begin sends the 200 status and headers of a stream.
	begin() error
	// event sends one event; data is its JSON.
	event(typ string, data []byte) error
	// streamError ends the stream with an error in the platform's form.
	streamError(e APIError) error
	// httpError answers with an error status instead of a stream.
	httpError(e APIError)
	// cut breaks the connection.
	cut() Outcome
	// pings says whether the platform passes ping events on.
	pings() bool
}

func isAnthropicPath(path string) bool {
	return path == "/v1/messages" || isBedrockPath(path) || isVertexPath(path)
}

// anthropicMessages answers POST /v1/messages.
func (s *Server) anthropicMessages(w http.ResponseWriter, r *http.Request, seq int) answer {
	f := &sseFramer{w: w, rc: http.NewResponseController(w)}
	body, ok := s.anthropicBody(f, seq, true)
	if !ok {
		return answer{outcome: OutcomeHTTPError, reply: NoReply}
	}
	model, _ := body["model"].(string)
	return s.playAnthropic(r.Context(), f, seq, body, model)
}

// anthropicBody reads the request as the Messages API would, answering a
// body it would reject with its error. withModel says the platform takes
// the model in the body (Bedrock and Vertex take it in the path).
func (s *Server) anthropicBody(f anthropicFramer, seq int, withModel bool) (map[string]any, bool) {
	body, err := parseObject(s.rec.get(seq).Body)
	if err != nil {
		f.httpError(APIError{Status: http.StatusBadRequest, Message: fmt.Sprintf("invalid JSON: %v", err)})
		return nil, false
	}
	if _, ok := body["messages"].([]any); !ok {
		f.httpError(APIError{Status: http.StatusBadRequest, Message: "messages: Field required"})
		return nil, false
	}
	if _, ok := body["max_tokens"].(float64); !ok {
		f.httpError(APIError{Status: http.StatusBadRequest, Message: "max_tokens: Field required"})
		return nil, false
	}
	if m, _ := body["model"].(string); withModel && m == "" {
		f.httpError(APIError{Status: http.StatusBadRequest, Message: "model: Field required"})
		return nil, false
	}
	if stream, _ := body["stream"].(bool); withModel && !stream {
		// The scripted replies are streams; no client of this kit asks
		// for a whole message, so saying so beats inventing one.
		f.httpError(APIError{Status: http.StatusBadRequest, Message: "llmserver: only streamed messages (\"stream\": true) are scripted"})
		return nil, false
	}
	return body, true
}

// playAnthropic takes the next reply and plays it through f.
func (s *Server) playAnthropic(ctx context.Context, f anthropicFramer, seq int, body map[string]any, model string) answer {
	p, reply, n, err := s.takeReply(body)
	s.rec.update(seq, func(req *Request) { req.Reply = reply })
	if err != nil {
		s.reportf("%v", err)
		f.httpError(APIError{Status: http.StatusInternalServerError, Message: err.Error()})
		return answer{outcome: OutcomeHTTPError, reply: reply}
	}
	x := &anthropicPlay{f: f, p: p, n: n, model: model}
	if x.model == "" {
		x.model = s.script.script.Model
	}
	return answer{outcome: x.play(ctx), reply: reply}
}

// anthropicPlay writes one reply as Anthropic events. Consecutive script
// steps of one kind (text, thinking) share a content block; a tool call or
// a change of kind starts the next one.
type anthropicPlay struct {
	f     anthropicFramer
	p     plan
	n     int
	model string

	started  bool
	pinged   bool
	block    int    // index of the open block, or of the next one
	open     string // type of the open block, "" for none
	tools    int    // tool_use blocks so far
	thinking strings.Builder
}

func (x *anthropicPlay) play(ctx context.Context) Outcome {
	finished := false
	for _, a := range x.p.actions {
		if ctx.Err() != nil {
			return OutcomeCanceled
		}
		switch a.kind {
		case actDelay:
			if sleep(ctx, a.delay) != nil {
				return OutcomeCanceled
			}
			continue
		case actHTTPError:
			x.f.httpError(a.err)
			return OutcomeHTTPError
		case actDisconnect:
			return x.f.cut()
		}
		if err := x.begin(); err != nil {
			return OutcomeCanceled
		}
		var err error
		switch a.kind {
		case actKeepAlive:
			err = x.ping()
		case actContent:
			err = x.text(a.text, 1)
		case actTokens:
			err = x.text(a.text, a.count)
		case actReasoning:
			if err = x.ensure("thinking", thinkingStart{Type: "thinking"}); err == nil {
				x.thinking.WriteString(a.text)
				err = x.delta(thinkingDelta{Type: "thinking_delta", Thinking: a.text})
			}
		case actRedacted:
			if err = x.ensure("redacted_thinking", redactedStart{Type: "redacted_thinking", Data: a.text}); err == nil {
				err = x.close()
			}
		case actToolStart:
			err = x.toolStart(a)
		case actToolArgs:
			err = x.delta(inputDelta{Type: "input_json_delta", PartialJSON: a.text})
		case actFinish:
			finished = true
			err = x.finish()
		case actStreamError:
			if err = x.f.streamError(a.err); err == nil {
				return OutcomeStreamError
			}
		}
		if err != nil {
			return OutcomeCanceled
		}
	}
	if err := x.begin(); err != nil {
		return OutcomeCanceled
	}
	if !finished {
		if err := x.finish(); err != nil {
			return OutcomeCanceled
		}
	}
	if err := x.send("message_stop", typeOnly{Type: "message_stop"}); err != nil {
		return OutcomeCanceled
	}
	return OutcomeOK
}

// begin sends the headers and message_start, once.
func (x *anthropicPlay) begin() error {
	if x.started {
		return nil
	}
	x.started = true
	if err := x.f.begin(); err != nil {
		return err
	}
	in, read, write := x.promptUsage()
	return x.send("message_start", messageStart{Type: "message_start", Message: startMessage{
		ID:      anthropicID("msg_", uint64(x.n), 0),
		Type:    "message",
		Role:    "assistant",
		Content: []struct{}{},
		Model:   x.model,
		Usage: startUsage{
			InputTokens:              in,
			CacheCreationInputTokens: write,
			CacheReadInputTokens:     read,
			OutputTokens:             1,
		},
	}})
}

// promptUsage splits the script's prompt tokens the way Anthropic counts
// them: input_tokens are only the ones neither read from nor written to
// the cache.
func (x *anthropicPlay) promptUsage() (in, read, write int) {
	u := x.p.usage
	if u == nil {
		return 0, 0, 0
	}
	return max(u.PromptTokens-u.CachedTokens-u.CacheWriteTokens, 0), u.CachedTokens, u.CacheWriteTokens
}

func (x *anthropicPlay) text(s string, count int) error {
	if err := x.ensure("text", textStart{Type: "text"}); err != nil {
		return err
	}
	for range count {
		if err := x.delta(textDelta{Type: "text_delta", Text: s}); err != nil {
			return err
		}
	}
	return nil
}

func (x *anthropicPlay) toolStart(a action) error {
	if err := x.close(); err != nil {
		return err
	}
	id := a.id
	if id == "" {
		id = anthropicID("toolu_", uint64(x.n), uint64(x.tools)+1)
	}
	x.tools++
	if err := x.ensure("tool_use", toolStart{Type: "tool_use", ID: id, Name: a.name, Input: struct{}{}}); err != nil {
		return err
	}
	// The API opens every tool input with an empty piece.
	return x.delta(inputDelta{Type: "input_json_delta", PartialJSON: ""})
}

// ensure opens a block of type typ unless one is open already.
func (x *anthropicPlay) ensure(typ string, start any) error {
	if x.open == typ && typ != "tool_use" && typ != "redacted_thinking" {
		return nil
	}
	if err := x.close(); err != nil {
		return err
	}
	x.open = typ
	if err := x.send("content_block_start", blockStart{Type: "content_block_start", Index: x.block, ContentBlock: start}); err != nil {
		return err
	}
	if !x.pinged {
		x.pinged = true
		return x.ping()
	}
	return nil
}

// close ends the open block; a thinking block gets its signature first.
func (x *anthropicPlay) close() error {
	if x.open == "" {
		return nil
	}
	if x.open == "thinking" {
		if err := x.delta(signatureDelta{Type: "signature_delta", Signature: ThinkingSignature(x.thinking.String())}); err != nil {
			return err
		}
		x.thinking.Reset()
	}
	err := x.send("content_block_stop", blockStop{Type: "content_block_stop", Index: x.block})
	x.open = ""
	x.block++
	return err
}

func (x *anthropicPlay) delta(d any) error {
	return x.send("content_block_delta", blockDelta{Type: "content_block_delta", Index: x.block, Delta: d})
}

func (x *anthropicPlay) ping() error {
	if !x.f.pings() {
		return nil
	}
	return x.f.event("ping", []byte(`{"type": "ping"}`))
}

// finish closes the open block and sends message_delta.
func (x *anthropicPlay) finish() error {
	if err := x.close(); err != nil {
		return err
	}
	out := 0
	if x.p.usage != nil {
		out = x.p.usage.CompletionTokens
	}
	reason := anthropicStopReason(x.p.finish)
	return x.send("message_delta", messageDelta{
		Type:  "message_delta",
		Delta: stopDelta{StopReason: &reason},
		Usage: outputUsage{OutputTokens: out},
	})
}

func (x *anthropicPlay) send(typ string, v any) error {
	b, err := marshal(v)
	if err != nil {
		return err
	}
	return x.f.event(typ, b)
}

// anthropicStopReason is the script's finish reason in Anthropic's words;
// reasons it has no word for go as they are.
func anthropicStopReason(finish string) string {
	switch finish {
	case "stop":
		return "end_turn"
	case "length":
		return "max_tokens"
	case "tool_calls":
		return "tool_use"
	}
	return finish
}

// ThinkingSignature is the signature the fake gives a thinking block whose
// text is thinking: derived from the text, so replaying a script gives the
// same bytes and a test can check the client sent the block back intact.
func ThinkingSignature(thinking string) string {
	sum := sha256.Sum256([]byte(thinking))
	return "sig" + base64.StdEncoding.EncodeToString(sum[:])
}

// anthropicID is prefix and 24 letters and digits, like the API's ids, but
// derived from the request count and a sub-index so that reruns match.
func anthropicID(prefix string, n, sub uint64) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	rng := rand.New(rand.NewPCG(n, 0x616e7468^sub))
	b := []byte(prefix + "01")
	for range 22 {
		b = append(b, alphabet[rng.IntN(len(alphabet))])
	}
	return string(b)
}

// anthropicErrorType is the API's error type for e: the script's own, or
// the one the API uses for the status.
func anthropicErrorType(e APIError) string {
	if e.Type != "" {
		return e.Type
	}
	switch code := e.code(); code {
	case 400:
		return "invalid_request_error"
	case 401:
		return "authentication_error"
	case 402:
		return "billing_error"
	case 403:
		return "permission_error"
	case 404:
		return "not_found_error"
	case 413:
		return "request_too_large"
	case 429:
		return "rate_limit_error"
	case 504:
		return "timeout_error"
	case 529:
		return "overloaded_error"
	default:
		if code < 500 {
			return "invalid_request_error"
		}
		return "api_error"
	}
}

// anthropicErrorBody is {"type":"error","error":{"type":...,"message":...}}.
func anthropicErrorBody(e APIError) []byte {
	msg := e.message()
	if msg == "" {
		// 529 has no status text; the API says this.
		msg = "Overloaded"
	}
	b, err := marshal(errorEvent{Type: "error", Error: errorDetail{Type: anthropicErrorType(e), Message: msg}})
	if err != nil {
		// Two strings cannot fail to encode; keep the shape regardless.
		return []byte(`{"type":"error","error":{"type":"api_error","message":"llmserver"}}`)
	}
	return b
}

// sseFramer carries the events as the first-party API does: text/event-stream
// with an event: line and a data: line per event.
type sseFramer struct {
	w  http.ResponseWriter
	rc *http.ResponseController
}

func (f *sseFramer) begin() error {
	h := f.w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	h.Set("Request-Id", "req_llmserver")
	f.w.WriteHeader(http.StatusOK)
	return nil
}

func (f *sseFramer) event(typ string, data []byte) error {
	b := make([]byte, 0, len(typ)+len(data)+16)
	b = append(b, "event: "...)
	b = append(b, typ...)
	b = append(b, "\ndata: "...)
	b = append(b, data...)
	b = append(b, "\n\n"...)
	return flushWrite(f.w, f.rc, b)
}

func (f *sseFramer) streamError(e APIError) error {
	return f.event("error", anthropicErrorBody(e))
}

func (f *sseFramer) httpError(e APIError) {
	h := f.w.Header()
	for k, v := range e.Header {
		h.Set(k, v)
	}
	body := anthropicErrorBody(e)
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", fmt.Sprint(len(body)))
	h.Set("Request-Id", "req_llmserver")
	f.w.WriteHeader(e.code())
	_, _ = f.w.Write(body) // a client that left cannot be told anything
}

func (f *sseFramer) cut() Outcome { return hijackClose(f.rc) }

func (f *sseFramer) pings() bool { return true }

// flushWrite writes b and flushes it, so the client sees each event when
// the script sends it.
func flushWrite(w http.ResponseWriter, rc *http.ResponseController, b []byte) error {
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("write stream: %w", err)
	}
	if err := rc.Flush(); err != nil {
		return fmt.Errorf("flush stream: %w", err)
	}
	return nil
}

// hijackClose breaks the connection under a response.
func hijackClose(rc *http.ResponseController) Outcome {
	conn, _, err := rc.Hijack()
	if err != nil {
		return OutcomeDisconnected
	}
	_ = conn.Close() // the point is to break the connection; nothing to report
	return OutcomeDisconnected
}

// The structs below fix the key order of the events as the API reference
// shows them.

type typeOnly struct {
	Type string `json:"type"`
}

type messageStart struct {
	Type    string       `json:"type"`
	Message startMessage `json:"message"`
}

type startMessage struct {
	ID           string     `json:"id"`
	Type         string     `json:"type"`
	Role         string     `json:"role"`
	Content      []struct{} `json:"content"`
	Model        string     `json:"model"`
	StopReason   *string    `json:"stop_reason"`
	StopSequence *string    `json:"stop_sequence"`
	Usage        startUsage `json:"usage"`
}

type startUsage struct {
	InputTokens              int `json:"input_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
	OutputTokens             int `json:"output_tokens"`
}

type blockStart struct {
	Type         string `json:"type"`
	Index        int    `json:"index"`
	ContentBlock any    `json:"content_block"`
}

type textStart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type thinkingStart struct {
	Type     string `json:"type"`
	Thinking string `json:"thinking"`
}

type redactedStart struct {
	Type string `json:"type"`
	Data string `json:"data"`
}

type toolStart struct {
	Type  string   `json:"type"`
	ID    string   `json:"id"`
	Name  string   `json:"name"`
	Input struct{} `json:"input"`
}

type blockDelta struct {
	Type  string `json:"type"`
	Index int    `json:"index"`
	Delta any    `json:"delta"`
}

type textDelta struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type thinkingDelta struct {
	Type     string `json:"type"`
	Thinking string `json:"thinking"`
}

type signatureDelta struct {
	Type      string `json:"type"`
	Signature string `json:"signature"`
}

type inputDelta struct {
	Type        string `json:"type"`
	PartialJSON string `json:"partial_json"`
}

type blockStop struct {
	Type  string `json:"type"`
	Index int    `json:"index"`
}

type messageDelta struct {
	Type  string      `json:"type"`
	Delta stopDelta   `json:"delta"`
	Usage outputUsage `json:"usage"`
}

type stopDelta struct {
	StopReason   *string `json:"stop_reason"`
	StopSequence *string `json:"stop_sequence"`
}

type outputUsage struct {
	OutputTokens int `json:"output_tokens"`
}

type errorEvent struct {
	Type  string      `json:"type"`
	Error errorDetail `json:"error"`
}

type errorDetail struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}
