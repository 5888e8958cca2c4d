package openai

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/troupehq/troupe/runtime/llm"
	"github.com/troupehq/troupe/testkit/deltameter"
)

const benchDeltas = 100_000

// benchStream is benchDeltas one-token frames shaped exactly like new
// llama-server's, plus the finish, usage and [DONE] frames.
func benchStream() []byte {
	var b bytes.Buffer
	tokens := []string{"alph", " zes", "ificate", " successo", " status", " heutigen", "\\n", "gele"}
	const tail = `"created":1795339250,"id":"chatcmpl-LHSgyvYLtzPjLiPtxhfNBLJvVzGO3j5n","model":"tiny","system_fingerprint":"b0-unknown","object":"chat.completion.chunk"}`
	b.WriteString(`data: {"choices":[{"finish_reason":null,"index":0,"delta":{"role":"assistant","content":null}}],` + tail + "\n\n")
	for i := 0; i < benchDeltas; i++ {
		fmt.Fprintf(&b, `data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":"%s"}}],%s`+"\n\n", tokens[i%len(tokens)], tail)
	}
	b.WriteString(`data: {"choices":[{"finish_reason":"length","index":0,"delta":{}}],` + tail + "\n\n")
	b.WriteString(`data: {"choices":[],"usage":{"completion_tokens":100000,"prompt_tokens":29,"total_tokens":100029},` + tail + "\n\n")
	b.WriteString("data: [DONE]\n\n")
	return b.Bytes()
}

// BenchmarkStreamDeltas measures the parser alone: event-stream framing,
// frame decoding, the sink call and assembling the reply.
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
		a := &llm.Assembler{Sink: sink}
		if err := decodeStream(context.Background(), bytes.NewReader(stream), a, 0); err != nil {
			b.Fatal(err)
		}
		_ = a.Response()
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "deltas/s")
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
	c, err := New(Config{BaseURL: srv.URL})
	if err != nil {
		b.Fatal(err)
	}
	defer c.http.CloseIdleConnections()
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	var n int
	m := deltameter.Start()
	for b.Loop() {
		_, err := c.Stream(context.Background(), llm.Request{Model: "tiny", Stream: true}, func(c llm.Chunk) error {
			if c.Kind == llm.ChunkText {
				n++
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "deltas/s")
	m.Report(b, n)
}
