package openai

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/troupehq/troupe/runtime/llm"
)

// sseServer serves body verbatim as an event stream, flushing after every
// piece so the client reads it as it would a live server.
func sseServer(t *testing.T, pieces ...string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, p := range pieces {
			_, _ = w.Write([]byte(p))
			w.(http.Flusher).Flush()
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func streamOnce(t *testing.T, srv *httptest.Server) ([]llm.Chunk, *llm.Response, error) {
	t.Helper()
	c := newTestClient(t, Config{BaseURL: srv.URL})
	var chunks []llm.Chunk
	resp, err := c.Stream(context.Background(), llm.Request{Model: "m", Stream: true}, collect(&chunks))
	return chunks, resp, err
}

func text(s string) llm.Chunk     { return llm.Chunk{Kind: llm.ChunkText, Text: s} }
func thinking(s string) llm.Chunk { return llm.Chunk{Kind: llm.ChunkThinking, Text: s} }

func TestStreamFraming(t *testing.T) {
	srv := sseServer(t,
		": keep-alive\r\n\r\n",
		":\n\n",
		"event: message\r\nid: 1\r\ndata: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":null}}]}\r\n\r\n",
		"data:{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\n",
		// One event split over two data lines, and over two writes.
		"data: {\"choices\":[{\"index\":0,\n",
		"data: \"delta\":{\"content\":\"b\\nc\"}}]}\n\n",
		"retry: 1000\n\n",
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"t1\"}}]}\n\n",
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning\":\"t2\"}}]}\n\n",
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\\u00e9\\ud83d\\ude00\"}}]}\n\n",
		":\n\n",
		"data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n",
		"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":4,\"total_tokens\":7}}\n\n",
		"data: [DONE]\n\n",
	)
	chunks, resp, err := streamOnce(t, srv)
	requireNoError(t, err)
	usage := llm.Usage{PromptTokens: 3, CompletionTokens: 4, TotalTokens: 7}
	requireEqual(t, chunks, []llm.Chunk{
		text("a"), text("b\nc"), thinking("t1"), thinking("t2"), text("é😀"),
		{Kind: llm.ChunkUsage, Usage: usage},
	}, "chunks")
	requireEqual(t, resp.Message.Content, "ab\ncé😀", "content")
	requireEqual(t, resp.Message.Thinking, "t1t2", "thinking")
	requireEqual(t, resp.FinishReason, llm.FinishStop, "finish")
	requireEqual(t, resp.Usage, &usage, "usage")
}

func TestStreamToolCallDeltas(t *testing.T) {
	frame := func(delta string) string {
		return `data: {"id":"chatcmpl-1","model":"m","choices":[{"index":0,"delta":` + delta + `}]}` + "\n\n"
	}
	srv := sseServer(t,
		frame(`{"role":"assistant","content":null}`),
		frame(`{"content":"Let me look."}`),
		frame(`{"tool_calls":[{"index":0,"id":"call_abc","type":"function","function":{"name":"read_file","arguments":""}}]}`),
		frame(`{"tool_calls":[{"index":1,"id":"","type":"function","function":{"name":"ls","arguments":"{\"dir\":"}}]}`),
		frame(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"path\":"}}]}`),
		frame(`{"tool_calls":[{"index":0,"function":{"arguments":"\"a.go\"}"}}]}`),
		frame(`{"tool_calls":[{"index":1,"function":{"arguments":"\".\"}"}}]}`),
		`data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`+"\n\n",
		"data: [DONE]\n\n",
	)
	chunks, resp, err := streamOnce(t, srv)
	requireNoError(t, err)
	tc := func(i int, id, name, args string) llm.Chunk {
		return llm.Chunk{Kind: llm.ChunkToolCall, ToolCall: llm.ToolCallDelta{Index: i, ID: id, Name: name, ArgumentsDelta: args}}
	}
	requireEqual(t, chunks, []llm.Chunk{
		text("Let me look."),
		tc(0, "call_abc", "read_file", ""),
		tc(1, "call_1", "ls", `{"dir":`),
		tc(0, "", "", `{"path":`),
		tc(0, "", "", `"a.go"}`),
		tc(1, "", "", `"."}`),
	}, "chunks")
	requireEqual(t, resp.Message.ToolCalls, []llm.ToolCall{
		{ID: "call_abc", Name: "read_file", Arguments: `{"path":"a.go"}`},
		{ID: "call_1", Name: "ls", Arguments: `{"dir":"."}`},
	}, "tool calls")
	requireEqual(t, resp.FinishReason, llm.FinishToolCalls, "finish")
	requireEqual(t, resp.ID, "chatcmpl-1", "id")
	requireEqual(t, resp.Model, "m", "model")
}

func TestStreamMidStreamError(t *testing.T) {
	srv := sseServer(t,
		`data: {"choices":[{"index":0,"delta":{"content":"par"}}]}`+"\n\n",
		`data: {"error":{"code":500,"message":"slot crashed","type":"server_error"}}`+"\n\n",
	)
	chunks, _, err := streamOnce(t, srv)
	e := requireLLMError(t, err)
	requireEqual(t, [3]any{e.Status, e.Type, e.Message}, [3]any{500, "server_error", "slot crashed"}, "error")
	if !e.Retryable {
		t.Fatal("a 500 error frame should be retryable")
	}
	requireEqual(t, chunks, []llm.Chunk{text("par")}, "chunks before the error")

	// Without a code, and as an overflow.
	srv = sseServer(t, `data: {"error":{"message":"the server is overloaded"}}`+"\n\n")
	_, _, err = streamOnce(t, srv)
	if !llm.IsRetryable(err) {
		t.Fatalf("error frame without code: want retryable, got %v", err)
	}
	srv = sseServer(t, `data: {"error":{"code":400,"type":"exceed_context_size_error","message":"too long"}}`+"\n\n")
	_, _, err = streamOnce(t, srv)
	if !llm.IsContextOverflow(err) || llm.IsRetryable(err) {
		t.Fatalf("overflow frame: got %v", err)
	}
}

func TestStreamCut(t *testing.T) {
	delta := `data: {"choices":[{"index":0,"delta":{"content":"x"}}]}` + "\n\n"
	t.Run("clean end without finish", func(t *testing.T) {
		_, _, err := streamOnce(t, sseServer(t, delta, delta))
		if !errors.Is(err, llm.ErrStreamCut) || !llm.IsRetryable(err) || !strings.Contains(err.Error(), "stream was cut") {
			t.Fatalf("want a retryable stream-cut error, got %v", err)
		}
	})
	t.Run("unterminated last frame", func(t *testing.T) {
		_, _, err := streamOnce(t, sseServer(t, delta, `data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`))
		if !errors.Is(err, llm.ErrStreamCut) {
			t.Fatalf("a frame without its blank line is not dispatched: want stream cut, got %v", err)
		}
	})
	t.Run("connection dropped mid-frame", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			conn, buf, err := w.(http.Hijacker).Hijack()
			if err != nil {
				return
			}
			defer conn.Close()
			fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
			fmt.Fprintf(buf, "%x\r\n%s\r\n", len(delta), delta)
			fmt.Fprintf(buf, "10\r\ndata: {\"choi")
			_ = buf.Flush()
		}))
		t.Cleanup(srv.Close)
		chunks, _, err := streamOnce(t, srv)
		if !errors.Is(err, llm.ErrStreamCut) || !llm.IsRetryable(err) {
			t.Fatalf("want a retryable stream-cut error, got %v", err)
		}
		requireEqual(t, chunks, []llm.Chunk{text("x")}, "chunks before the cut")
	})
	t.Run("finish without DONE is complete", func(t *testing.T) {
		_, resp, err := streamOnce(t, sseServer(t, delta, `data: {"choices":[{"index":0,"delta":{},"finish_reason":"length"}]}`+"\n\n"))
		requireNoError(t, err)
		requireEqual(t, resp.FinishReason, llm.FinishLength, "finish")
	})
	t.Run("DONE without blank line", func(t *testing.T) {
		_, resp, err := streamOnce(t, sseServer(t, delta, "data: [DONE]"))
		requireNoError(t, err)
		requireEqual(t, resp.Message.Content, "x", "content")
	})
}

func TestStreamBadFrame(t *testing.T) {
	_, _, err := streamOnce(t, sseServer(t, "data: {not json}\n\n"))
	e := requireLLMError(t, err)
	if e.Type != llm.TypeInvalidResponse || e.Retryable {
		t.Fatalf("want a non-retryable invalid_response, got %+v", e)
	}
}

// endlessServer streams a delta every few milliseconds until the client
// goes away, and reports when its handler has returned.
func endlessServer(t *testing.T, delay time.Duration) (*httptest.Server, chan struct{}) {
	gone := make(chan struct{}, 16)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() { gone <- struct{}{} }()
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		tick := time.NewTicker(delay)
		defer tick.Stop()
		for {
			select {
			case <-r.Context().Done():
				return
			case <-tick.C:
				if _, err := w.Write([]byte(`data: {"choices":[{"index":0,"delta":{"content":"x"}}]}` + "\n\n")); err != nil {
					return
				}
				w.(http.Flusher).Flush()
			}
		}
	}))
	t.Cleanup(srv.Close)
	return srv, gone
}

func TestStreamCancelMidStream(t *testing.T) {
	requireNoGoroutineLeak(t)
	srv, gone := endlessServer(t, 2*time.Millisecond)
	c := newTestClient(t, Config{BaseURL: srv.URL})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var n int
	var cancelledAt time.Time
	_, err := c.Stream(ctx, llm.Request{Stream: true}, func(llm.Chunk) error {
		n++
		if n == 3 {
			cancelledAt = time.Now()
			cancel()
		}
		if n > 3 {
			t.Errorf("chunk %d delivered after cancel", n)
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("want context.Canceled, got %v", err)
	}
	if d := time.Since(cancelledAt); d > 500*time.Millisecond {
		t.Fatalf("returned %v after cancel", d)
	}
	select {
	case <-gone:
	case <-time.After(2 * time.Second):
		t.Fatal("server still streaming: request not aborted")
	}
}

func TestStreamCancelWhileServerSilent(t *testing.T) {
	requireNoGoroutineLeak(t)
	srv, gone := endlessServer(t, time.Hour)
	c := newTestClient(t, Config{BaseURL: srv.URL})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := c.Stream(ctx, llm.Request{Stream: true}, nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("want context.DeadlineExceeded, got %v", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("took %v to notice the deadline", d)
	}
	<-gone
}

func TestStreamCancelBeforeHeaders(t *testing.T) {
	requireNoGoroutineLeak(t)
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	c := newTestClient(t, Config{BaseURL: srv.URL})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(30*time.Millisecond, cancel)
	_, err := c.Stream(ctx, llm.Request{Stream: true}, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("want context.Canceled, got %v", err)
	}
}

func TestSinkErrorAborts(t *testing.T) {
	requireNoGoroutineLeak(t)
	srv, gone := endlessServer(t, time.Millisecond)
	c := newTestClient(t, Config{BaseURL: srv.URL})
	stop := errors.New("enough")
	_, err := c.Stream(context.Background(), llm.Request{Stream: true}, func(llm.Chunk) error { return stop })
	if !errors.Is(err, stop) {
		t.Fatalf("want the sink's error, got %v", err)
	}
	select {
	case <-gone:
	case <-time.After(2 * time.Second):
		t.Fatal("server still streaming after the sink stopped")
	}
}

func TestConnectionRefused(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	requireNoError(t, err)
	addr := l.Addr().String()
	l.Close()
	c := newTestClient(t, Config{BaseURL: "http://" + addr})
	_, err = c.Stream(context.Background(), llm.Request{Stream: true}, nil)
	e := requireLLMError(t, err)
	if e.Type != llm.TypeConnection || !e.Retryable {
		t.Fatalf("want a retryable connection error, got %+v", e)
	}
	if err := c.Health(context.Background()); !llm.IsRetryable(err) {
		t.Fatalf("health: want retryable, got %v", err)
	}
}

func TestNonStreamReasoningAndToolCalls(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"id":"x","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant",
			"content":[{"type":"text","text":"on it"}],"reasoning_content":"plan",
			"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":{"a":1}}}]}}],
			"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3,"prompt_tokens_details":{"cached_tokens":1}}}`))
	}))
	t.Cleanup(srv.Close)
	c := newTestClient(t, Config{BaseURL: srv.URL})
	var chunks []llm.Chunk
	resp, err := c.Stream(context.Background(), llm.Request{}, collect(&chunks))
	requireNoError(t, err)
	usage := llm.Usage{PromptTokens: 1, CompletionTokens: 2, TotalTokens: 3, CachedTokens: 1}
	requireEqual(t, chunks, []llm.Chunk{
		thinking("plan"), text("on it"),
		{Kind: llm.ChunkToolCall, ToolCall: llm.ToolCallDelta{ID: "c1", Name: "f", ArgumentsDelta: `{"a":1}`}},
		{Kind: llm.ChunkUsage, Usage: usage},
	}, "chunks")
	requireEqual(t, resp.Message.ToolCalls, []llm.ToolCall{{ID: "c1", Name: "f", Arguments: `{"a":1}`}}, "tool calls")
	requireEqual(t, resp.Message.Thinking, "plan", "thinking")
}

func TestStreamLongLines(t *testing.T) {
	big := strings.Repeat("é", 150_000) // 300 kB, several times the read buffer
	frame := `data: {"choices":[{"index":0,"delta":{"content":"` + big + `"},"finish_reason":"stop"}]}` + "\n\n"
	_, resp, err := streamOnce(t, sseServer(t, frame, "data: [DONE]\n\n"))
	requireNoError(t, err)
	requireEqual(t, resp.Message.Content, big, "content")

	c := newTestClient(t, Config{BaseURL: sseServer(t, frame).URL, MaxLineBytes: 100_000})
	_, err = c.Stream(context.Background(), llm.Request{Stream: true}, nil)
	e := requireLLMError(t, err)
	if e.Type != llm.TypeInvalidResponse || e.Retryable {
		t.Fatalf("line over the limit: want non-retryable invalid_response, got %+v", e)
	}
}

func TestStreamDoneThenServerHangs(t *testing.T) {
	requireNoGoroutineLeak(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte(`data: {"choices":[{"index":0,"delta":{"content":"x"},"finish_reason":"stop"}]}` + "\n\ndata: [DONE]\n\n"))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	c := newTestClient(t, Config{BaseURL: srv.URL})
	start := time.Now()
	resp, err := c.Stream(context.Background(), llm.Request{Stream: true}, nil)
	requireNoError(t, err)
	requireEqual(t, resp.Message.Content, "x", "content")
	if d := time.Since(start); d > time.Second {
		t.Fatalf("waited %v for a server that never ends the body", d)
	}
}

func TestStreamReusesConnection(t *testing.T) {
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte(`data: {"choices":[{"index":0,"delta":{"content":"x"},"finish_reason":"stop"}]}` + "\n\n"))
		w.(http.Flusher).Flush()
		_, _ = w.Write([]byte("data: [DONE]\n\n"))
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	c := newTestClient(t, Config{BaseURL: srv.URL})
	for range 3 {
		_, err := c.Stream(context.Background(), llm.Request{Stream: true}, nil)
		requireNoError(t, err)
	}
	requireEqual(t, conns.Load(), 1, "connections for three streams")
}
