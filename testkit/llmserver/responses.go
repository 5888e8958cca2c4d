package llmserver

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/troupehq/troupe/runtime/llm"
)

// The OpenAI Responses API wire format (POST /v1/responses): the same
// Script as the chat completions, each reply's steps written as the
// Responses API's typed events. Consecutive text (and tokens) steps are
// the deltas of one message item, consecutive thinking steps the summary
// deltas of one reasoning item, whose done event carries an encrypted
// content made from the summary when the request included
// "reasoning.encrypted_content"; a tool call is a function_call item whose
// call_id is its id (call_<index> when it has none, as
// llm.GeneratedCallID names it), one arguments delta per chunk. Usage goes
// on the terminal event; finish "length" or "content_filter" makes it
// response.incomplete, any other finish response.completed. A stream_error
// step is a response.failed event whose error code is its type (by default
// server_error, rate_limit_exceeded for 429, invalid_prompt below 500);
// http_error answers in OpenAI's error shape.

// IsResponses reports whether the request was a Responses API request.
func (r Request) IsResponses() bool {
	return r.Method == http.MethodPost && (r.Path == "/v1/responses" || r.Path == "/responses")
}

// ResponsesRequests returns the Responses API requests received so far.
func (s *Server) ResponsesRequests() []Request { return s.rec.snapshot(Request.IsResponses) }

// WaitResponsesRequests waits until at least n Responses API requests
// have arrived and returns them.
func (s *Server) WaitResponsesRequests(ctx context.Context, n int) ([]Request, error) {
	return s.waitCount(ctx, n, Request.IsResponses)
}

// respExchange is one Responses API answer being written.
type respExchange struct {
	s      *Server
	w      http.ResponseWriter
	rc     *http.ResponseController
	p      plan
	n      int
	obj    respObject
	stream bool
	// encrypt says the request included reasoning.encrypted_content.
	encrypt bool
	seq     int
	started bool
	open    *openItem
	calls   int
}

// openItem is the output item whose deltas are being written.
type openItem struct {
	index int
	kind  string
	id    string
	text  strings.Builder
	// callID and name belong to a function call.
	callID, name string
}

func (s *Server) responses(w http.ResponseWriter, r *http.Request, seq int) answer {
	body, err := parseObject(s.rec.get(seq).Body)
	if err != nil {
		return s.failResponses(w, APIError{Status: http.StatusBadRequest,
			Message: fmt.Sprintf("We could not parse the JSON body of your request. (%v)", err)})
	}
	p, reply, n, err := s.takeReply(body)
	s.rec.update(seq, func(req *Request) { req.Reply = reply })
	if err != nil {
		s.reportf("%v", err)
		return s.failResponses(w, APIError{Status: http.StatusInternalServerError, Message: err.Error()})
	}
	x := &respExchange{s: s, w: w, rc: http.NewResponseController(w), p: p, n: n, obj: s.responseObject(body, n)}
	x.stream, _ = body["stream"].(bool)
	if include, ok := body["include"].([]any); ok {
		x.encrypt = slices.Contains(include, any("reasoning.encrypted_content"))
	}
	return answer{outcome: x.play(r.Context()), reply: reply}
}

// responseObject is the response as response.created shows it.
func (s *Server) responseObject(body map[string]any, n int) respObject {
	get := func(key string, def any) any {
		if v, ok := body[key]; ok {
			return v
		}
		return def
	}
	o := respObject{
		ID:                 responsesID("resp", n, 0),
		Object:             "response",
		CreatedAt:          s.cfg.now().Unix(),
		Status:             "in_progress",
		Instructions:       get("instructions", nil),
		MaxOutputTokens:    get("max_output_tokens", nil),
		Model:              s.script.script.Model,
		Output:             []any{},
		ParallelToolCalls:  get("parallel_tool_calls", true),
		PreviousResponseID: get("previous_response_id", nil),
		Store:              get("store", true),
		Temperature:        get("temperature", 1.0),
		ToolChoice:         get("tool_choice", "auto"),
		Tools:              get("tools", []any{}),
		TopP:               get("top_p", 1.0),
		Truncation:         "disabled",
		Metadata:           map[string]string{},
	}
	if m, ok := body["model"].(string); ok && m != "" {
		o.Model = m
	}
	if r, ok := body["reasoning"].(map[string]any); ok {
		o.Reasoning = respReasoning{Effort: r["effort"], Summary: r["summary"]}
	}
	o.Text.Format.Type = "text"
	return o
}

// play writes the reply: as events when the request streams, else as one
// response object at the end. Any write error means the client is gone.
func (x *respExchange) play(ctx context.Context) Outcome {
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
			x.s.failResponses(x.w, a.err)
			return OutcomeHTTPError
		case actDisconnect:
			return (&exchange{s: x.s, rc: x.rc}).cut()
		case actStreamError:
			if !x.stream {
				x.s.failResponses(x.w, a.err)
				return OutcomeHTTPError
			}
		}
		if err := x.begin(); err != nil {
			return OutcomeCanceled
		}
		var err error
		switch a.kind {
		case actKeepAlive:
			if x.stream {
				err = x.write([]byte(":\n\n"))
			}
		case actContent:
			err = x.text(a.text, 1)
		case actTokens:
			err = x.text(a.text, a.count)
		case actReasoning:
			err = x.reasoning(a.text)
		case actToolStart:
			err = x.startCall(a)
		case actToolArgs:
			err = x.arguments(a.text)
		case actFinish:
			err = x.closeItem()
		case actStreamError:
			if err = x.fail(a.err); err == nil {
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
	if err := x.closeItem(); err != nil {
		return OutcomeCanceled
	}
	if err := x.complete(); err != nil {
		return OutcomeCanceled
	}
	return OutcomeOK
}

// begin sends the headers, response.created and response.in_progress,
// once.
func (x *respExchange) begin() error {
	if x.started || !x.stream {
		x.started = true
		return nil
	}
	x.started = true
	h := x.w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Request-Id", responsesID("req", x.n, 1))
	x.w.WriteHeader(http.StatusOK)
	created := x.obj
	if err := x.event("response.created", &respEvent{Response: &created}); err != nil {
		return err
	}
	return x.event("response.in_progress", &respEvent{Response: &created})
}

// text adds count deltas of s to the open message item, opening one when
// another kind of item is open.
func (x *respExchange) text(s string, count int) error {
	if err := x.openKind(itemMessage); err != nil {
		return err
	}
	it := x.open
	for range count {
		it.text.WriteString(s)
		if s == "" {
			continue
		}
		err := x.event("response.output_text.delta", &respTextDelta{ItemID: it.id, OutputIndex: it.index, Delta: s})
		if err != nil {
			return err
		}
	}
	return nil
}

func (x *respExchange) reasoning(s string) error {
	if err := x.openKind(itemReasoning); err != nil {
		return err
	}
	it := x.open
	it.text.WriteString(s)
	return x.event("response.reasoning_summary_text.delta", &respSummaryDelta{ItemID: it.id, OutputIndex: it.index, Delta: s})
}

func (x *respExchange) startCall(a action) error {
	if err := x.closeItem(); err != nil {
		return err
	}
	callID := a.id
	if callID == "" {
		callID = llm.GeneratedCallID(x.calls)
	}
	x.calls++
	it := &openItem{index: len(x.obj.Output), kind: itemFunctionCall, callID: callID, name: a.name}
	it.id = responsesID("fc", x.n, it.index+1)
	x.open = it
	return x.event("response.output_item.added", &respItemEvent{OutputIndex: it.index, Item: x.callItem(it, "in_progress")})
}

func (x *respExchange) arguments(s string) error {
	it := x.open
	it.text.WriteString(s)
	return x.event("response.function_call_arguments.delta", &respArgsDelta{ItemID: it.id, OutputIndex: it.index, Delta: s})
}

// openKind makes sure the open item is a message or a reasoning item,
// closing any other.
func (x *respExchange) openKind(kind string) error {
	if x.open != nil && x.open.kind == kind {
		return nil
	}
	if err := x.closeItem(); err != nil {
		return err
	}
	it := &openItem{index: len(x.obj.Output), kind: kind}
	x.open = it
	switch kind {
	case itemMessage:
		it.id = responsesID("msg", x.n, it.index+1)
		item := messageItem{ID: it.id, Type: itemMessage, Status: "in_progress", Content: []outputText{}, Role: "assistant"}
		if err := x.event("response.output_item.added", &respItemEvent{OutputIndex: it.index, Item: item}); err != nil {
			return err
		}
		return x.event("response.content_part.added", &respPartEvent{ItemID: it.id, OutputIndex: it.index, Part: newOutputText("")})
	default:
		it.id = responsesID("rs", x.n, it.index+1)
		item := reasoningItem{ID: it.id, Type: itemReasoning, Summary: []summaryText{}}
		if err := x.event("response.output_item.added", &respItemEvent{OutputIndex: it.index, Item: item}); err != nil {
			return err
		}
		return x.event("response.reasoning_summary_part.added", &respSummaryPart{ItemID: it.id, OutputIndex: it.index, Part: summaryText{Type: "summary_text"}})
	}
}

// closeItem writes the done events of the open item and adds it to the
// response's output.
func (x *respExchange) closeItem() error {
	it := x.open
	if it == nil {
		return nil
	}
	x.open = nil
	text := it.text.String()
	var item any
	var err error
	switch it.kind {
	case itemMessage:
		item = messageItem{ID: it.id, Type: itemMessage, Status: "completed", Content: []outputText{newOutputText(text)}, Role: "assistant"}
		err = x.event("response.output_text.done", &respTextDone{ItemID: it.id, OutputIndex: it.index, Text: text})
		if err == nil {
			err = x.event("response.content_part.done", &respPartEvent{ItemID: it.id, OutputIndex: it.index, Part: newOutputText(text)})
		}
	case itemReasoning:
		part := summaryText{Type: "summary_text", Text: text}
		r := reasoningItem{ID: it.id, Type: itemReasoning, Summary: []summaryText{part}}
		if x.encrypt {
			r.EncryptedContent = encryptedReasoning(text)
		}
		item = r
		err = x.event("response.reasoning_summary_text.done", &respSummaryDone{ItemID: it.id, OutputIndex: it.index, Text: text})
		if err == nil {
			err = x.event("response.reasoning_summary_part.done", &respSummaryPart{ItemID: it.id, OutputIndex: it.index, Part: part})
		}
	default:
		item = x.callItem(it, "completed")
		err = x.event("response.function_call_arguments.done", &respArgsDone{ItemID: it.id, Name: it.name, OutputIndex: it.index, Arguments: text})
	}
	if err != nil {
		return err
	}
	x.obj.Output = append(x.obj.Output, item)
	return x.event("response.output_item.done", &respItemEvent{OutputIndex: it.index, Item: item})
}

func (x *respExchange) callItem(it *openItem, status string) functionCallItem {
	args := ""
	if status == "completed" {
		args = it.text.String()
	}
	return functionCallItem{ID: it.id, Type: itemFunctionCall, Status: status, Arguments: args, CallID: it.callID, Name: it.name}
}

func newOutputText(text string) outputText {
	return outputText{Type: "output_text", Annotations: []any{}, Text: text}
}

// complete ends the reply: response.completed (or .incomplete, for a
// length or content-filter finish) with the usage, or the response object
// itself when the request did not stream.
func (x *respExchange) complete() error {
	o := x.obj
	o.Status = "completed"
	name := "response.completed"
	switch x.p.finish {
	case "length":
		o.Status, o.IncompleteDetails, name = "incomplete", &incompleteDetails{Reason: "max_output_tokens"}, "response.incomplete"
	case "content_filter":
		o.Status, o.IncompleteDetails, name = "incomplete", &incompleteDetails{Reason: "content_filter"}, "response.incomplete"
	}
	if u := x.p.usage; u != nil {
		o.Usage = u.responses()
	}
	if !x.stream {
		b, err := marshal(o)
		if err != nil {
			return err
		}
		writeResponsesJSON(x.w, http.StatusOK, b)
		return nil
	}
	return x.event(name, &respEvent{Response: &o})
}

// fail ends a streamed reply with response.failed.
func (x *respExchange) fail(e APIError) error {
	o := x.obj
	o.Status = "failed"
	o.Error = &respError{Code: responsesFailureCode(e), Message: e.message()}
	return x.event("response.failed", &respEvent{Response: &o})
}

// event writes one event, setting its type and sequence number; without
// streaming it writes nothing.
func (x *respExchange) event(name string, ev any) error {
	if !x.stream {
		return nil
	}
	switch e := ev.(type) {
	case *respEvent:
		e.Type, e.Seq = name, x.seq
	case *respItemEvent:
		e.Type, e.Seq = name, x.seq
	case *respPartEvent:
		e.Type, e.Seq = name, x.seq
	case *respTextDelta:
		e.Type, e.Seq = name, x.seq
	case *respTextDone:
		e.Type, e.Seq = name, x.seq
	case *respSummaryPart:
		e.Type, e.Seq = name, x.seq
	case *respSummaryDelta:
		e.Type, e.Seq = name, x.seq
	case *respSummaryDone:
		e.Type, e.Seq = name, x.seq
	case *respArgsDelta:
		e.Type, e.Seq = name, x.seq
	case *respArgsDone:
		e.Type, e.Seq = name, x.seq
	default:
		return fmt.Errorf("llmserver: no event type %T", ev)
	}
	x.seq++
	data, err := marshal(ev)
	if err != nil {
		return err
	}
	b := make([]byte, 0, len(name)+len(data)+16)
	b = append(b, "event: "...)
	b = append(b, name...)
	b = append(b, "\ndata: "...)
	b = append(b, data...)
	b = append(b, "\n\n"...)
	return x.write(b)
}

func (x *respExchange) write(b []byte) error {
	if _, err := x.w.Write(b); err != nil {
		return fmt.Errorf("write stream: %w", err)
	}
	if err := x.rc.Flush(); err != nil {
		return fmt.Errorf("flush stream: %w", err)
	}
	return nil
}

// failResponses answers with an error in OpenAI's shape.
func (s *Server) failResponses(w http.ResponseWriter, e APIError) answer {
	body, err := responsesErrorBody(e)
	if err != nil {
		// Only a script's bad extra can get here, and compile rejects those.
		body, _ = responsesErrorBody(APIError{Status: http.StatusInternalServerError, Message: err.Error()})
	}
	for k, v := range e.Header {
		w.Header().Set(k, v)
	}
	writeResponsesJSON(w, e.code(), body)
	return answer{outcome: OutcomeHTTPError, reply: NoReply}
}

// writeResponsesJSON writes a JSON answer with OpenAI's headers rather
// than llama-server's.
func writeResponsesJSON(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body) // a client that left cannot be told anything
}
