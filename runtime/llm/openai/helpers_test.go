package openai

import (
	"errors"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/troupehq/troupe/runtime/llm"
)

func requireNoError(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
}

func requireEqual[T any](t testing.TB, got, want T, what string) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s:\n got  %#v\n want %#v", what, got, want)
	}
}

func requireLLMError(t testing.TB, err error) *llm.Error {
	t.Helper()
	var e *llm.Error
	if !errors.As(err, &e) {
		t.Fatalf("want *llm.Error, got %T: %v", err, err)
	}
	return e
}

func newTestClient(t testing.TB, cfg Config) *Client {
	t.Helper()
	c, err := New(cfg)
	requireNoError(t, err)
	t.Cleanup(c.http.CloseIdleConnections)
	return c
}

// collect returns a sink that records every chunk.
func collect(chunks *[]llm.Chunk) func(llm.Chunk) error {
	return func(c llm.Chunk) error {
		*chunks = append(*chunks, c)
		return nil
	}
}

// requireNoGoroutineLeak fails if, after the test's cleanups ran, more
// goroutines are left than when it started. Goroutines of the HTTP stack
// take a moment to go, so it polls.
func requireNoGoroutineLeak(t *testing.T) {
	t.Helper()
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(3 * time.Second)
		for {
			n := runtime.NumGoroutine()
			if n <= before {
				return
			}
			if time.Now().After(deadline) {
				buf := make([]byte, 1<<20)
				buf = buf[:runtime.Stack(buf, true)]
				t.Errorf("goroutines: %d before, %d after\n%s", before, n, relevantStacks(string(buf)))
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
}

func relevantStacks(all string) string {
	var keep []string
	for _, g := range strings.Split(all, "\n\n") {
		if strings.Contains(g, "testing.") && !strings.Contains(g, "net/http") {
			continue
		}
		keep = append(keep, g)
	}
	return strings.Join(keep, "\n\n")
}
