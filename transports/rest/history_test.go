package rest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/troupehq/troupe/actors"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/testkit"
)

// A follower of a live session gets every event of a large batch once, in
// order, across the writer's flush boundaries.
func TestFollowDeliversLargeBatchesWhole(t *testing.T) {
	rt := testkit.Boot(t, actors.Options{})
	api := New(Config{Sessions: rt.Sessions, Version: "test", Log: testkit.TestLogger(t)})
	mux := http.NewServeMux()
	api.Register(mux)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	ctx := context.Background()
	const id = "s-follow"
	testkit.NoError(t, rt.Sessions.Create(ctx, id, event.CreatedPayload{Cwd: t.TempDir(), Title: "start"}))

	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/v1/sessions/"+id+"/history?follow=1", nil)
	res, err := http.DefaultClient.Do(req)
	testkit.NoError(t, err)
	defer res.Body.Close()
	lines := make(chan historyLine, 8192)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(res.Body)
		for sc.Scan() {
			var l historyLine
			if json.Unmarshal(sc.Bytes(), &l) == nil {
				lines <- l
			}
		}
	}()

	// The snapshot (the created title) is written: what follows comes
	// from the stream.
	if l := testkit.ChanRead(t, lines, 30*time.Second); l.Seq != 1 {
		t.Fatalf("snapshot line %+v", l)
	}
	const n = 3*maxBatch + 7
	drafts := make([]event.Draft, n)
	for i := range drafts {
		title := fmt.Sprint(i)
		d, err := event.NewDraft(event.SessionSettingsChanged, event.Settings{Title: &title})
		testkit.NoError(t, err)
		drafts[i] = d
	}
	_, _, err = rt.Sessions.Append(ctx, id, drafts...)
	testkit.NoError(t, err)
	for i := range n {
		l := testkit.ChanRead(t, lines, 30*time.Second)
		if title := l.Params.Update.(map[string]any)["title"]; l.Seq != int64(i+2) || title != fmt.Sprint(i) {
			t.Fatalf("line %d: seq %d title %v", i, l.Seq, title)
		}
	}
	select {
	case l, ok := <-lines:
		if ok {
			t.Fatalf("extra line %+v", l)
		}
	case <-time.After(100 * time.Millisecond):
	}
}
