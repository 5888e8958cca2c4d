package openairesponses

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"testing"

	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/troupehq/troupe/runtime/llm"
)

// FuzzReadEvents feeds arbitrary event streams to the reader: it must
// never panic, and anything but a complete reply is an *llm.Error (a
// sink error aside, and the sink here never fails).
func FuzzReadEvents(f *testing.F) {
	f.Add([]byte("event: response.output_item.added\ndata: {\"type\":\"response.output_item.added\",\"output_index\":0,\"item\":{\"type\":\"function_call\",\"call_id\":\"c\",\"name\":\"n\"}}\n\n" +
		"data: {\"type\":\"response.function_call_arguments.delta\",\"output_index\":0,\"delta\":\"{}\"}\n\n" +
		"data: {\"type\":\"response.completed\",\"response\":{\"status\":\"completed\",\"output\":[]}}\n\n"))
	f.Add([]byte("data: {\"type\":\"response.reasoning_summary_part.added\"}\n\ndata: {\"type\":\"response.failed\",\"response\":{\"error\":{\"code\":\"server_error\",\"message\":\"x\"}}}\n\n"))
	f.Add([]byte("event: error\ndata: {\"type\":\"error\",\"error\":{\"message\":\"m\"}}\n\n"))
	f.Add([]byte("data: {\"type\":\"response.output_item.done\",\"output_index\":-1,\"item\":{\"type\":\"reasoning\",\"summary\":[{\"text\":\"t\"}],\"encrypted_content\":\"e\"}}\n\n"))
	f.Add(deltaStream(3))
	f.Fuzz(func(t *testing.T, stream []byte) {
		r := reader{a: llm.Assembler{Sink: func(llm.Chunk) error { return nil }}}
		body := &http.Response{Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: io.NopCloser(bytes.NewReader(stream))}
		err := r.read(context.Background(), ssestream.NewDecoder(body))
		var le *llm.Error
		if err != nil && !errors.As(err, &le) {
			t.Fatalf("error %T: %v", err, err)
		}
		if err == nil {
			_ = r.response()
		}
	})
}
