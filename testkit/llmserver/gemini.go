package llmserver

import (
	"bytes"
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// The Gemini API's wire format (generativelanguage.googleapis.com), served
// from the same Script as the OpenAI one:
//
//	POST /v1beta/models/{model}:streamGenerateContent?alt=sse
//	POST /v1beta/models/{model}:generateContent
//
// (and the same under /v1). A streamed reply is one "data: <JSON>" frame
// per output step, each a GenerateContentResponse written as Google writes
// it (a space after each colon, frames ended by "\r\n\r\n"): text and
// thinking steps are text parts ("thought": true for thinking), a run of
// tool calls is one frame of functionCall parts (an id only when the
// script gives one, as the Gemini API sends none), and the last frame has
// the finishReason and the usageMetadata. A reply that thinks gets thought
// signatures, as a thinking Gemini model's does: on its first function
// call, else on the empty text part of the last frame; they are derived
// from the reply's position, so runs are reproducible. Errors use Google's
// body, {"error":{"code","message","status"}}, indented as Google indents
// it; a stream_error is that body in a data frame.

// geminiRoute splits /v1beta/models/{model}:{method}.
func geminiRoute(path string) (model, method string, ok bool) {
	rest, found := strings.CutPrefix(path, "/v1beta/models/")
	if !found {
		rest, found = strings.CutPrefix(path, "/v1/models/")
	}
	if !found {
		return "", "", false
	}
	model, method, ok = strings.Cut(rest, ":")
	if !ok || model == "" || (method != "streamGenerateContent" && method != "generateContent") {
		return "", "", false
	}
	return model, method, true
}

func isGeminiPath(path string) bool {
	_, _, ok := geminiRoute(path)
	return ok
}

// geminiStatus is the google.rpc.Code name Google sends with an HTTP
// status.
func geminiStatus(code int) string {
	switch code {
	case 400:
		return "INVALID_ARGUMENT"
	case 401:
		return "UNAUTHENTICATED"
	case 403:
		return "PERMISSION_DENIED"
	case 404:
		return "NOT_FOUND"
	case 409:
		return "ABORTED"
	case 429:
		return "RESOURCE_EXHAUSTED"
	case 499:
		return "CANCELLED"
	case 501:
		return "UNIMPLEMENTED"
	case 503:
		return "UNAVAILABLE"
	case 504:
		return "DEADLINE_EXCEEDED"
	}
	if code < 500 {
		return "FAILED_PRECONDITION"
	}
	return "INTERNAL"
}

// geminiBody renders e as Google's error body, compact: code, message,
// status, then Extra's members (such as "details").
func (e APIError) geminiBody() ([]byte, error) {
	var b bytes.Buffer
	code, err := marshal(e.code())
	if err != nil {
		return nil, err
	}
	msg, err := marshal(e.message())
	if err != nil {
		return nil, err
	}
	status, err := marshal(cmp.Or(e.Type, geminiStatus(e.code())))
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(&b, `{"error":{"code":%s,"message":%s,"status":%s`, code, msg, status)
	extra, err := extraMembers(e.Extra)
	if err != nil {
		return nil, err
	}
	if len(extra) > 0 {
		b.WriteByte(',')
		b.Write(extra)
	}
	b.WriteString("}}")
	return b.Bytes(), nil
}

// geminiFail answers with Google's error body, indented as Google's are.
func (s *Server) geminiFail(w http.ResponseWriter, e APIError) answer {
	body, err := e.geminiBody()
	if err != nil {
		body, _ = APIError{Status: http.StatusInternalServerError, Message: err.Error()}.geminiBody()
	}
	var out bytes.Buffer
	if json.Indent(&out, body, "", "  ") == nil {
		body = append(out.Bytes(), '\n')
	}
	for k, v := range e.Header {
		w.Header().Set(k, v)
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=UTF-8")
	h.Set("Content-Length", fmt.Sprint(len(body)))
	h.Set("Server", "scaffolding on HTTPServer2")
	w.WriteHeader(e.code())
	_, _ = w.Write(body) // a client that left cannot be told anything
	return answer{outcome: OutcomeHTTPError, reply: NoReply}
}

// failFor answers an error in the shape of the wire format r's path
// belongs to.
func (s *Server) failFor(r *http.Request, w http.ResponseWriter, e APIError) answer {
	if isGeminiPath(r.URL.Path) {
		return s.geminiFail(w, e)
	}
	return s.fail(w, e)
}

// geminiExchange is one Gemini answer being written.
type geminiExchange struct {
	exchange
	n       int // the reply's position, for its ids and signatures
	model   string
	respID  string
	thinks  bool    // the reply has a thinking step, so it gets signatures
	signed  bool    // a signature has been sent
	pending []gPart // a run of function calls not yet sent
}

func (s *Server) gemini(w http.ResponseWriter, r *http.Request, seq int) answer {
	model, method, _ := geminiRoute(r.URL.Path)
	rec := s.rec.get(seq)
	body, err := parseObject(rec.Body)
	if err != nil {
		return s.geminiFail(w, APIError{Status: http.StatusBadRequest, Message: fmt.Sprintf("Invalid JSON payload received. %v", err)})
	}
	if _, ok := body["contents"].([]any); !ok {
		return s.geminiFail(w, APIError{Status: http.StatusBadRequest, Message: "* GenerateContentRequest.contents: contents is not specified\n"})
	}
	p, reply, n, err := s.takeReply(body)
	s.rec.update(seq, func(req *Request) { req.Reply = reply })
	if err != nil {
		s.reportf("%v", err)
		return s.geminiFail(w, APIError{Status: http.StatusInternalServerError, Message: err.Error()})
	}
	x := &geminiExchange{
		exchange: exchange{s: s, w: w, rc: http.NewResponseController(w), p: p},
		n:        n,
		model:    model,
		respID:   completionID(n)[len("chatcmpl-"):][:22],
	}
	for _, a := range p.actions {
		x.thinks = x.thinks || a.kind == actReasoning
	}
	var out Outcome
	if method == "streamGenerateContent" {
		out = x.stream(r.Context())
	} else {
		out = x.complete(r.Context())
	}
	return answer{outcome: out, reply: reply}
}

// The structs fix the key order of Google's JSON.
type gResponse struct {
	Candidates    []gCandidate `json:"candidates,omitempty"`
	UsageMetadata *gUsage      `json:"usageMetadata,omitempty"`
	ModelVersion  string       `json:"modelVersion"`
	ResponseID    string       `json:"responseId"`
}

type gCandidate struct {
	Content      gContent `json:"content"`
	FinishReason string   `json:"finishReason,omitempty"`
	Index        int      `json:"index"`
}

type gContent struct {
	Parts []gPart `json:"parts"`
	Role  string  `json:"role"`
}

type gPart struct {
	FunctionCall     *gCall  `json:"functionCall,omitempty"`
	Text             *string `json:"text,omitempty"`
	Thought          bool    `json:"thought,omitempty"`
	ThoughtSignature string  `json:"thoughtSignature,omitempty"`
}

type gCall struct {
	ID   string          `json:"id,omitempty"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

type gUsage struct {
	PromptTokenCount        int `json:"promptTokenCount,omitempty"`
	CandidatesTokenCount    int `json:"candidatesTokenCount,omitempty"`
	TotalTokenCount         int `json:"totalTokenCount,omitempty"`
	CachedContentTokenCount int `json:"cachedContentTokenCount,omitempty"`
	ThoughtsTokenCount      int `json:"thoughtsTokenCount,omitempty"`
}

// gemini is the usage as Gemini counts it: thoughts apart from the
// candidates, where the OpenAI wire counts them inside completion tokens.
func (u Usage) gemini() *gUsage {
	return &gUsage{
		PromptTokenCount:        u.PromptTokens,
		CandidatesTokenCount:    u.CompletionTokens - u.ReasoningTokens,
		TotalTokenCount:         cmp.Or(u.TotalTokens, u.PromptTokens+u.CompletionTokens),
		CachedContentTokenCount: u.CachedTokens,
		ThoughtsTokenCount:      u.ReasoningTokens,
	}
}

// geminiFinish maps a script's finish reason to Gemini's: a turn that
// calls functions stops like any other.
func geminiFinish(reason string) string {
	switch reason {
	case "stop", "tool_calls":
		return "STOP"
	case "length":
		return "MAX_TOKENS"
	case "content_filter":
		return "SAFETY"
	}
	return strings.ToUpper(reason)
}

// GeminiThoughtSignature is the thought signature the Gemini routes put
// on the answer to the n-th (0-based) reply request: opaque bytes, as
// Gemini's are, but reproducible, so a test can check that its client sent
// it back.
func GeminiThoughtSignature(n int) string {
	return base64.StdEncoding.EncodeToString(fmt.Appendf(nil, "troupe-llmserver/thought-signature/%d", n))
}

func textPart(s string, thought bool) gPart { return gPart{Text: &s, Thought: thought} }

// callPart makes the function call a tool start begins; its arguments
// come with the actToolArgs that follow.
func (x *geminiExchange) callPart(a action) gPart {
	c := gPart{FunctionCall: &gCall{ID: a.id, Name: a.name}}
	if x.thinks && !x.signed {
		c.ThoughtSignature, x.signed = GeminiThoughtSignature(x.n), true
	}
	return c
}

// addArgs appends a chunk of the pending call's arguments.
func addArgs(p *gPart, chunk string) {
	p.FunctionCall.Args = append(p.FunctionCall.Args, chunk...)
}

// sealArgs checks that every pending call's arguments are an object, as
// Gemini's always are: a script's broken JSON cannot go on this wire.
func (x *geminiExchange) sealArgs(parts []gPart) {
	for i := range parts {
		c := parts[i].FunctionCall
		if c == nil {
			continue
		}
		args := bytes.TrimSpace(c.Args)
		var obj map[string]json.RawMessage
		if len(args) == 0 || json.Unmarshal(args, &obj) != nil || obj == nil {
			if len(args) > 0 {
				x.s.reportf("llmserver: gemini: tool call %q arguments %q are not a JSON object", c.Name, args)
			}
			args = []byte("{}")
		}
		c.Args = args
	}
}

// finalPart ends a reply that made no function call: an empty text part
// carrying the signature of a reply that thought.
func (x *geminiExchange) finalPart() gPart {
	p := textPart("", false)
	if x.thinks && !x.signed {
		p.ThoughtSignature, x.signed = GeminiThoughtSignature(x.n), true
	}
	return p
}

func (x *geminiExchange) response(parts []gPart, finish string) gResponse {
	r := gResponse{ModelVersion: x.model, ResponseID: x.respID}
	if parts != nil || finish != "" {
		r.Candidates = []gCandidate{{Content: gContent{Parts: parts, Role: "model"}, FinishReason: finish}}
	}
	if finish != "" && x.p.usage != nil {
		r.UsageMetadata = x.p.usage.gemini()
	}
	return r
}

// stream writes the reply as Gemini's server-sent events. Any write error
// means the client is gone, so it ends the reply as canceled.
func (x *geminiExchange) stream(ctx context.Context) Outcome {
	finished := false
	for _, a := range x.p.actions {
		if ctx.Err() != nil {
			return OutcomeCanceled
		}
		if a.kind != actToolArgs && a.kind != actToolStart && a.kind != actDelay && len(x.pending) > 0 && a.kind != actFinish {
			if err := x.flushCalls(); err != nil {
				return OutcomeCanceled
			}
		}
		switch a.kind {
		case actDelay:
			if sleep(ctx, a.delay) != nil {
				return OutcomeCanceled
			}
			continue
		case actHTTPError:
			return x.s.geminiFail(x.w, a.err).outcome
		case actDisconnect:
			return x.cut()
		}
		x.beginGemini()
		var err error
		switch a.kind {
		case actKeepAlive:
			// Google's streams have no comment frames; the headers are out.
		case actContent:
			err = x.frame(x.response([]gPart{textPart(a.text, false)}, ""))
		case actTokens:
			for range a.count {
				if err = x.frame(x.response([]gPart{textPart(a.text, false)}, "")); err != nil {
					break
				}
			}
		case actReasoning:
			err = x.frame(x.response([]gPart{textPart(a.text, true)}, ""))
		case actToolStart:
			x.pending = append(x.pending, x.callPart(a))
		case actToolArgs:
			addArgs(&x.pending[len(x.pending)-1], a.text)
		case actFinish:
			finished = true
			err = x.finishFrame()
		case actStreamError:
			body, berr := a.err.geminiBody()
			if berr == nil {
				if err = x.sse(body); err == nil {
					return OutcomeStreamError
				}
			}
			err = cmp.Or(err, berr)
		}
		if err != nil {
			return OutcomeCanceled
		}
	}
	x.beginGemini()
	if !finished {
		if err := x.finishFrame(); err != nil {
			return OutcomeCanceled
		}
	}
	return OutcomeOK
}

// beginGemini sends the headers, once.
func (x *geminiExchange) beginGemini() {
	if x.started {
		return
	}
	x.started = true
	h := x.w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Server", "scaffolding on HTTPServer2")
	h.Set("X-Content-Type-Options", "nosniff")
	x.w.WriteHeader(http.StatusOK)
}

// flushCalls sends a run of function calls as one frame, as Gemini sends
// parallel calls.
func (x *geminiExchange) flushCalls() error {
	x.beginGemini()
	parts := x.pending
	x.pending = nil
	x.sealArgs(parts)
	return x.frame(x.response(parts, ""))
}

// finishFrame sends the last frame: the pending calls or the final empty
// text part, the finish reason and the usage.
func (x *geminiExchange) finishFrame() error {
	parts := x.pending
	x.pending = nil
	if len(parts) == 0 {
		parts = []gPart{x.finalPart()}
	}
	x.sealArgs(parts)
	return x.frame(x.response(parts, geminiFinish(x.p.finish)))
}

func (x *geminiExchange) frame(r gResponse) error {
	b, err := marshal(r)
	if err != nil {
		return err
	}
	return x.sse(b)
}

func (x *geminiExchange) sse(payload []byte) error {
	b := make([]byte, 0, len(payload)+len(payload)/8+10)
	b = append(b, "data: "...)
	b = appendSpaced(b, payload)
	b = append(b, "\r\n\r\n"...)
	return x.write(b)
}

// appendSpaced appends compact JSON with a space after every colon
// outside strings, the way Google's servers write it.
func appendSpaced(b, js []byte) []byte {
	inString, escaped := false, false
	for _, c := range js {
		b = append(b, c)
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case !inString && c == ':':
			b = append(b, ' ')
		}
	}
	return b
}

// complete writes the reply as one GenerateContentResponse: the thinking
// in one thought part, the text in one part, then the function calls.
func (x *geminiExchange) complete(ctx context.Context) Outcome {
	var (
		text, thought strings.Builder
		calls         []gPart
	)
	for _, a := range x.p.actions {
		if ctx.Err() != nil {
			return OutcomeCanceled
		}
		switch a.kind {
		case actDelay:
			if sleep(ctx, a.delay) != nil {
				return OutcomeCanceled
			}
		case actContent:
			text.WriteString(a.text)
		case actTokens:
			for range a.count {
				text.WriteString(a.text)
			}
		case actReasoning:
			thought.WriteString(a.text)
		case actToolStart:
			calls = append(calls, x.callPart(a))
		case actToolArgs:
			addArgs(&calls[len(calls)-1], a.text)
		case actHTTPError, actStreamError:
			return x.s.geminiFail(x.w, a.err).outcome
		case actDisconnect:
			return x.cut()
		case actKeepAlive, actFinish:
		}
	}
	var parts []gPart
	if thought.Len() > 0 {
		parts = append(parts, textPart(thought.String(), true))
	}
	if text.Len() > 0 || len(calls) == 0 {
		p := textPart(text.String(), false)
		if x.thinks && !x.signed {
			p.ThoughtSignature, x.signed = GeminiThoughtSignature(x.n), true
		}
		parts = append(parts, p)
	}
	x.sealArgs(calls)
	parts = append(parts, calls...)
	compact, err := marshal(x.response(parts, geminiFinish(x.p.finish)))
	var indented bytes.Buffer
	if err == nil {
		err = json.Indent(&indented, compact, "", "  ")
	}
	if err != nil {
		return x.s.geminiFail(x.w, APIError{Status: http.StatusInternalServerError, Message: err.Error()}).outcome
	}
	b := append(indented.Bytes(), '\n')
	h := x.w.Header()
	h.Set("Content-Type", "application/json; charset=UTF-8")
	h.Set("Content-Length", fmt.Sprint(len(b)))
	h.Set("Server", "scaffolding on HTTPServer2")
	x.w.WriteHeader(http.StatusOK)
	_, _ = x.w.Write(b)
	return OutcomeOK
}

// unauthorized is the answer to a request without a valid key: llama-
// server's 401, or on Gemini's routes the Gemini API's 400 with reason
// API_KEY_INVALID.
func (s *Server) unauthorized(r *http.Request) APIError {
	if !isGeminiPath(r.URL.Path) {
		return APIError{Status: http.StatusUnauthorized, Message: "Invalid API Key"}
	}
	return APIError{
		Status:  http.StatusBadRequest,
		Message: "API key not valid. Please pass a valid API key.",
		Extra: json.RawMessage(`{"details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID",` +
			`"domain":"googleapis.com","metadata":{"service":"generativelanguage.googleapis.com"}}]}`),
	}
}
