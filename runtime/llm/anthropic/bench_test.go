package anthropic_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/troupehq/troupe/runtime/llm"
	"github.com/troupehq/troupe/runtime/llm/anthropic"
	"github.com/troupehq/troupe/testkit/deltameter"
)

const benchDeltas = 100_000

// benchStream is benchDeltas one-token text deltas in one block, shaped
// exactly like the API's events, between message_start and message_stop.
func benchStream() []byte {
	var b bytes.Buffer
	tokens := []string{"alph", " zes", "ificate", " successo", " status", " heutigen", "\\n", "gele"}
	b.WriteString("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_01XFDUDYJgAACzvnptvVoYEL\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"model\":\"claude-sonnet-4-5\",\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{\"input_tokens\":29,\"cache_creation_input_tokens\":0,\"cache_read_input_tokens\":0,\"output_tokens\":1}}}\n\n")
	b.WriteString("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n")
	b.WriteString("event: ping\ndata: {\"type\": \"ping\"}\n\n")
	for i := 0; i < benchDeltas; i++ {
		fmt.Fprintf(&b, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"%s\"}}\n\n", tokens[i%len(tokens)])
	}
	b.WriteString("event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n")
	b.WriteString("event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"max_tokens\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":100000}}\n\n")
	b.WriteString("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")
	return b.Bytes()
}

// BenchmarkStreamDeltasHTTP is the CPU per streamed text delta of the
// whole Anthropic path, SDK included, over loopback HTTP: beside
// runtime/llm/openai's benchmarks of the same name, the cost of the
// official SDK against the project's own parser.
func BenchmarkStreamDeltasHTTP(b *testing.B) {
	stream := benchStream()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write(stream)
	}))
	defer srv.Close()
	hc := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	defer hc.CloseIdleConnections()
	c, err := anthropic.New(anthropic.Config{BaseURL: srv.URL, HTTPClient: hc})
	if err != nil {
		b.Fatal(err)
	}
	req := llm.Request{Model: "claude-sonnet-4-5", Stream: true, Messages: []llm.Message{{Role: llm.RoleUser, Content: "go"}}}
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	var n int
	m := deltameter.Start()
	for b.Loop() {
		_, err := c.Stream(context.Background(), req, func(c llm.Chunk) error {
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
