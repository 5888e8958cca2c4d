package openairesponses

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/responses"

	"github.com/troupehq/troupe/runtime/llm"
	"github.com/troupehq/troupe/testkit/deltameter"
)

const benchDeltas = 100_000

// benchStream is benchDeltas one-token output_text.delta events shaped
// like OpenAI's (logprobs and the obfuscation padding included) between
// the events that open and close a message, as runtime/llm/openai's
// benchmark streams the same tokens as chat-completion chunks.
func benchStream() []byte { return deltaStream(benchDeltas) }

// deltaStream is n such deltas between the events of one message.
func deltaStream(n int) []byte {
	var b bytes.Buffer
	tokens := []string{"alph", " zes", "ificate", " successo", " status", " heutigen", "\\n", "gele"}
	const msg = "msg_67c9fdcecf488190bdd9a0409de3a1ec07b8b0ad4e5eb654"
	seq := 0
	ev := func(name, data string) {
		fmt.Fprintf(&b, "event: %s\ndata: %s\n\n", name, data)
		seq++
	}
	ev("response.created", `{"type":"response.created","sequence_number":0,"response":{"id":"resp_67c9fdcecf488190bdd9a0409de3a1ec07b8b0ad4e5eb654","object":"response","created_at":1741290958,"status":"in_progress","error":null,"incomplete_details":null,"instructions":null,"max_output_tokens":null,"model":"gpt-4.1-2025-04-14","output":[],"parallel_tool_calls":true,"previous_response_id":null,"reasoning":{"effort":null,"summary":null},"store":false,"temperature":1.0,"text":{"format":{"type":"text"}},"tool_choice":"auto","tools":[],"top_p":1.0,"truncation":"disabled","usage":null,"user":null,"metadata":{}}}`)
	ev("response.output_item.added", fmt.Sprintf(`{"type":"response.output_item.added","sequence_number":%d,"output_index":0,"item":{"id":"%s","type":"message","status":"in_progress","content":[],"role":"assistant"}}`, seq, msg))
	ev("response.content_part.added", fmt.Sprintf(`{"type":"response.content_part.added","sequence_number":%d,"item_id":"%s","output_index":0,"content_index":0,"part":{"type":"output_text","annotations":[],"logprobs":[],"text":""}}`, seq, msg))
	for i := 0; i < n; i++ {
		ev("response.output_text.delta", fmt.Sprintf(`{"type":"response.output_text.delta","sequence_number":%d,"item_id":"%s","output_index":0,"content_index":0,"delta":"%s","logprobs":[],"obfuscation":"4kcJvPYu1T"}`, seq, msg, tokens[i%len(tokens)]))
	}
	ev("response.output_item.done", fmt.Sprintf(`{"type":"response.output_item.done","sequence_number":%d,"output_index":0,"item":{"id":"%s","type":"message","status":"completed","content":[{"type":"output_text","annotations":[],"logprobs":[],"text":"..."}],"role":"assistant"}}`, seq, msg))
	ev("response.completed", fmt.Sprintf(`{"type":"response.completed","sequence_number":%d,"response":{"id":"resp_67c9fdcecf488190bdd9a0409de3a1ec07b8b0ad4e5eb654","object":"response","created_at":1741290958,"status":"completed","model":"gpt-4.1-2025-04-14","output":[],"usage":{"input_tokens":29,"input_tokens_details":{"cached_tokens":0},"output_tokens":100000,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":100029}}}`, seq))
	return b.Bytes()
}

// BenchmarkStreamDeltas measures the reader alone: the SDK's event-stream
// decoder, each event decoded into the SDK's type for its name, the sink
// call and assembling the reply.
func BenchmarkStreamDeltas(b *testing.B) {
	stream := benchStream()
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	var n int
	sink := func(c llm.Chunk) error {
		if c.Kind == llm.ChunkText {
			n++
		}
		return nil
	}
	m := deltameter.Start()
	for b.Loop() {
		r := reader{a: llm.Assembler{Sink: sink}}
		body := &http.Response{Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: io.NopCloser(bytes.NewReader(stream))}
		if err := r.read(context.Background(), ssestream.NewDecoder(body)); err != nil {
			b.Fatal(err)
		}
		_ = r.response()
	}
	m.Report(b, n)
}

// BenchmarkStreamDeltasHTTP is the same stream through the whole client
// over loopback HTTP.
func BenchmarkStreamDeltasHTTP(b *testing.B) {
	stream := benchStream()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write(stream)
	}))
	defer srv.Close()
	hc := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	defer hc.CloseIdleConnections()
	c, err := New(Config{BaseURL: srv.URL, HTTPClient: hc})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	var n int
	m := deltameter.Start()
	for b.Loop() {
		_, err := c.Stream(context.Background(), llm.Request{Model: "gpt-4.1", Stream: true}, func(c llm.Chunk) error {
			if c.Kind == llm.ChunkText {
				n++
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	m.Report(b, n)
}

// BenchmarkStreamDeltasSDKUnion is the SDK's own streaming loop
// (ResponseService.NewStreaming, every event decoded into
// ResponseStreamEventUnion) over the same loopback stream: the path this
// package does not take, measured so the choice stays checked.
func BenchmarkStreamDeltasSDKUnion(b *testing.B) {
	stream := benchStream()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write(stream)
	}))
	defer srv.Close()
	hc := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	defer hc.CloseIdleConnections()
	svc := responses.NewResponseService(option.WithBaseURL(srv.URL+"/v1/"), option.WithHTTPClient(hc), option.WithMaxRetries(0))
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	var n int
	m := deltameter.Start()
	for b.Loop() {
		s := svc.NewStreaming(context.Background(), responses.ResponseNewParams{Model: "gpt-4.1"})
		for s.Next() {
			if e, ok := s.Current().AsAny().(responses.ResponseTextDeltaEvent); ok && e.Delta != "" {
				n++
			}
		}
		if err := s.Err(); err != nil {
			b.Fatal(err)
		}
	}
	m.Report(b, n)
}
