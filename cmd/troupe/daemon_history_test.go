package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// follower reads a history follow stream line by line.
type follower struct {
	lines  chan string
	cancel context.CancelFunc
}

func follow(t *testing.T, d *daemonProc, id string) *follower {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, "GET", d.url+"/v1/sessions/"+id+"/history?follow=1", nil)
	testkit.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+d.token)
	res, err := http.DefaultClient.Do(req)
	testkit.NoError(t, err)
	testkit.Equal(t, res.StatusCode, http.StatusOK)
	f := &follower{lines: make(chan string, 1024), cancel: cancel}
	go func() {
		defer res.Body.Close()
		defer close(f.lines)
		sc := bufio.NewScanner(res.Body)
		for sc.Scan() {
			f.lines <- sc.Text()
		}
	}()
	t.Cleanup(func() {
		cancel()
		for range f.lines {
		}
	})
	return f
}

// until reads lines until one holds the update kind, and returns them all
// re-encoded as historyLines does.
func (f *follower) until(t *testing.T, kind string, n int) []string {
	t.Helper()
	var out []string
	seen := 0
	for seen < n {
		line := testkit.ChanRead(t, f.lines, 30*time.Second)
		var m map[string]any
		testkit.NoError(t, json.Unmarshal([]byte(line), &m))
		b, _ := json.Marshal(m)
		out = append(out, string(b))
		if update(m)["sessionUpdate"] == kind {
			seen++
		}
	}
	return out
}

// requireSameHistory checks what a follower saw equals the history read
// afterwards: nothing missed between snapshot and tail, nothing twice.
func requireSameHistory(t *testing.T, followed, after []string) {
	t.Helper()
	if !slices.Equal(followed, after) {
		t.Fatalf("followed %d lines, history has %d:\nfollowed:\n%s\nhistory:\n%s", len(followed), len(after),
			strings.Join(followed, "\n"), strings.Join(after, "\n"))
	}
	last := 0.0
	for _, l := range followed {
		var m struct{ Seq float64 }
		_ = json.Unmarshal([]byte(l), &m)
		if m.Seq < last {
			t.Fatalf("seq %v after %v", m.Seq, last)
		}
		last = m.Seq
	}
}

// Following a session the daemon hosts: the snapshot, then live updates
// from its actor.
func TestDaemonHistoryFollowLive(t *testing.T) {
	d := startDaemon(t, t.TempDir(), nil)
	id := d.create(t, t.TempDir())
	d.do(t, "PATCH", "/v1/sessions/"+id, map[string]string{"title": "one"})
	f := follow(t, d, id)
	got := f.until(t, "session_info_update", 1)
	for k := 2; k <= 4; k++ {
		testkit.Equal(t, d.do(t, "PATCH", "/v1/sessions/"+id, map[string]string{"title": fmt.Sprint(k)}).StatusCode, http.StatusNoContent)
	}
	got = append(got, f.until(t, "session_info_update", 3)...)
	requireSameHistory(t, got, historyLines(t, d, id))
	testkit.Equal(t, len(got), 4)
}

// Following a cold session while another process prompts it: the daemon
// reads the store, never starting the session (which would take the
// lease), and shows the whole turn once.
func TestDaemonHistoryFollowWhilePromptedElsewhere(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	side := filepath.Join(work, "side.txt")
	env, model := llmEnv(t, bashStep(1, side, "true"), llmserver.Steps(llmserver.Text("all done")))
	d := startDaemon(t, home, env, model...)
	id := d.create(t, work)
	d.do(t, "POST", "/v1/sessions/"+id+"/kill", nil)
	f := follow(t, d, id)
	if code, out := runPrompt(t, home, env, model, id, "run the step"); code != 0 {
		t.Fatalf("troupe run: exit %d\n%s", code, out)
	}
	got := f.until(t, "turn_complete", 1)
	after := historyLines(t, d, id)
	requireSameHistory(t, got, after)
	joined := strings.Join(after, "\n")
	for _, want := range []string{`"sessionUpdate":"tool_call"`, `"sessionUpdate":"tool_call_update"`, `"text":"all done"`, `"text":"run the step"`} {
		if !strings.Contains(joined, want) {
			t.Fatalf("history lacks %s:\n%s", want, joined)
		}
	}
}

type eventRow struct {
	SessionID string         `json:"sessionId"`
	TS        time.Time      `json:"ts"`
	Kind      string         `json:"kind"`
	Update    map[string]any `json:"update"`
	MessageID string         `json:"messageId"`
}

func (d *daemonProc) eventRows(t *testing.T, path string) []eventRow {
	t.Helper()
	res := d.do(t, "GET", path, nil)
	testkit.Equal(t, res.StatusCode, http.StatusOK)
	var out []eventRow
	for _, m := range ndjson(t, res) {
		b, _ := json.Marshal(m)
		var r eventRow
		testkit.NoError(t, json.Unmarshal(b, &r))
		out = append(out, r)
	}
	return out
}

func TestDaemonEventsFilters(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	side := filepath.Join(work, "side.txt")
	env, model := llmEnv(t, bashStep(1, side, "true"), llmserver.Steps(llmserver.Text("a done")),
		llmserver.Steps(llmserver.Text("b done")))
	d := startDaemon(t, home, env, model...)
	a, b := d.create(t, work), d.create(t, work)
	for _, id := range []string{a, b} {
		d.do(t, "POST", "/v1/sessions/"+id+"/kill", nil)
		if code, out := runPrompt(t, home, env, model, id, "go"); code != 0 {
			t.Fatalf("troupe run %s: exit %d\n%s", id, code, out)
		}
	}

	rows := d.eventRows(t, "/v1/sessions/"+a+"/events?kinds=tool_call")
	if len(rows) != 1 || rows[0].Kind != "tool_call" || rows[0].Update["toolCallId"] != "call-1" || rows[0].SessionID != "" {
		t.Fatalf("tool_call rows: %+v", rows)
	}
	rows = d.eventRows(t, "/v1/sessions/"+a+"/events?kinds=turn_complete,usage_update,prompt_received")
	kinds := map[string]int{}
	for _, r := range rows {
		kinds[r.Kind]++
		if r.Update["sessionUpdate"] != r.Kind {
			t.Fatalf("row %+v: update's kind differs", r)
		}
	}
	if kinds["turn_complete"] != 1 || kinds["prompt_received"] != 1 || kinds["usage_update"] != 2 || len(kinds) != 3 {
		t.Fatalf("kinds %v", kinds)
	}
	if rows[len(rows)-1].Kind != "turn_complete" || rows[len(rows)-1].MessageID == "" {
		t.Fatalf("last row %+v", rows[len(rows)-1])
	}
	future := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	testkit.Equal(t, len(d.eventRows(t, "/v1/sessions/"+a+"/events?kinds=turn_complete&since="+future)), 0)

	merged := d.eventRows(t, "/v1/sessions/events?kinds=turn_complete")
	if len(merged) != 2 || merged[0].SessionID != a || merged[1].SessionID != b || merged[1].TS.Before(merged[0].TS) {
		t.Fatalf("merged: %+v", merged)
	}
	testkit.Equal(t, len(d.eventRows(t, "/v1/sessions/events?kinds=turn_complete&since="+future)), 0)

	for _, bad := range []string{"", "?kinds=", "?kinds=agent_message_chunk", "?kinds=tool_call&since=yesterday"} {
		wantError(t, d.do(t, "GET", "/v1/sessions/"+a+"/events"+bad, nil), http.StatusBadRequest)
		wantError(t, d.do(t, "GET", "/v1/sessions/events"+bad, nil), http.StatusBadRequest)
	}
	wantError(t, d.do(t, "GET", "/v1/sessions/nope/events?kinds=tool_call", nil), http.StatusNotFound)
}
