package rest

import (
	"bufio"
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/troupehq/troupe/actors"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/testkit"
)

// BenchmarkHistory: lines/s of GET /history over loopback HTTP for a
// session of 100,000 one-word deltas, as a snapshot read from the store
// and as a follower of the live session while they are appended.
func BenchmarkHistory(b *testing.B) {
	const n = 100_000
	rt := testkit.Boot(b, actors.Options{})
	api := New(Config{Sessions: rt.Sessions, Version: "bench", Log: testkit.TestLogger(b)})
	mux := http.NewServeMux()
	api.Register(mux)
	srv := httptest.NewServer(mux)
	b.Cleanup(srv.Close)
	ctx := context.Background()
	drafts := make([]event.Draft, 1000)
	for i := range drafts {
		d, err := event.NewDraft(event.MessageDelta, event.MessageDeltaPayload{RunID: "r", MessageID: "m", Channel: event.ChannelText, Text: "word "})
		testkit.NoError(b, err)
		drafts[i] = d
	}
	fill := func(id string) error {
		for range n / len(drafts) {
			if _, _, err := rt.Sessions.Append(ctx, id, drafts...); err != nil {
				return err
			}
		}
		return nil
	}
	count := func(res *http.Response, want int) {
		sc := bufio.NewScanner(res.Body)
		got := 0
		for got < want && sc.Scan() {
			got++
		}
		if got != want {
			b.Fatalf("read %d lines, want %d", got, want)
		}
	}
	b.Run("snapshot", func(b *testing.B) {
		id := "s-bench-snap"
		testkit.NoError(b, rt.Sessions.Create(ctx, id, event.CreatedPayload{}))
		testkit.NoError(b, fill(id))
		var took time.Duration
		for b.Loop() {
			start := time.Now()
			res, err := http.Get(srv.URL + "/v1/sessions/" + id + "/history")
			testkit.NoError(b, err)
			count(res, n)
			res.Body.Close()
			took += time.Since(start)
		}
		b.ReportMetric(float64(n*b.N)/took.Seconds(), "lines/s")
	})
	b.Run("follow", func(b *testing.B) {
		var took time.Duration
		for i := 0; b.Loop(); i++ {
			id := "s-bench-follow-" + string(rune('a'+i%26)) + time.Now().Format("150405.000000")
			testkit.NoError(b, rt.Sessions.Create(ctx, id, event.CreatedPayload{Title: "t"}))
			res, err := http.Get(srv.URL + "/v1/sessions/" + id + "/history?follow=1")
			testkit.NoError(b, err)
			count(res, 1)
			start := time.Now()
			filled := make(chan error, 1)
			go func() { filled <- fill(id) }()
			count(res, n)
			testkit.NoError(b, <-filled)
			took += time.Since(start)
			res.Body.Close()
		}
		b.ReportMetric(float64(n*b.N)/took.Seconds(), "lines/s")
	})
}
