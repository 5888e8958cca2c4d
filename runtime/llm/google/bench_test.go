package google_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/troupehq/troupe/runtime/llm"
	"github.com/troupehq/troupe/runtime/llm/google"
	"github.com/troupehq/troupe/testkit/deltameter"
)

const benchDeltas = 100_000

// benchStream is benchDeltas one-token frames shaped exactly like the
// Gemini API's (and the fake's), then the finish frame with the usage:
// the same tokens runtime/llm/openai's BenchmarkStreamDeltasHTTP streams.
func benchStream() []byte {
	var b bytes.Buffer
	tokens := []string{"alph", " zes", "ificate", " successo", " status", " heutigen", "\\n", "gele"}
	const tail = `"modelVersion": "gemini-2.5-flash","responseId": "OFvaKiGWN6LqpBJGmKDsUg"}`
	for i := 0; i < benchDeltas; i++ {
		fmt.Fprintf(&b, `data: {"candidates": [{"content": {"parts": [{"text": "%s"}],"role": "model"},"index": 0}],%s`+"\r\n\r\n", tokens[i%len(tokens)], tail)
	}
	b.WriteString(`data: {"candidates": [{"content": {"parts": [{"text": ""}],"role": "model"},"finishReason": "MAX_TOKENS","index": 0}],` +
		`"usageMetadata": {"promptTokenCount": 29,"candidatesTokenCount": 100000,"totalTokenCount": 100029},` + tail + "\r\n\r\n")
	return b.Bytes()
}

// BenchmarkStreamDeltasHTTP is the whole Gemini path (the SDK's client,
// its event-stream reader and response conversion, this package's
// decoding, the sink and the assembly) over loopback HTTP, beside
// runtime/llm/openai's benchmark of the same name.
func BenchmarkStreamDeltasHTTP(b *testing.B) {
	stream := benchStream()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write(stream)
	}))
	defer srv.Close()
	c, err := google.New(context.Background(), google.Config{BaseURL: srv.URL, APIKey: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	var n int
	m := deltameter.Start()
	for b.Loop() {
		resp, err := c.Stream(context.Background(), llm.Request{Model: "gemini-2.5-flash", Stream: true}, func(c llm.Chunk) error {
			if c.Kind == llm.ChunkText {
				n++
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		if resp.FinishReason != llm.FinishLength {
			b.Fatalf("finish %q", resp.FinishReason)
		}
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "deltas/s")
	m.Report(b, n)
}
