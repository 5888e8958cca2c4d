package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/troupehq/troupe/persistence"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// faultEnv makes the transport of a troupe_faults binary panic on an input
// line holding "boom".
const faultEnv = "TROUPE_FAULT_TRANSPORT_PANIC=boom"

// readUntil reads stdout until a line contains want.
func readUntil(t *testing.T, p *testkit.Proc, want string) string {
	t.Helper()
	for {
		line, ok := p.ReadLine(30 * time.Second)
		if !ok {
			t.Fatalf("no line with %s: %s", want, p.Stderr())
		}
		if strings.Contains(line, want) {
			return line
		}
	}
}

// afterCrash checks what a transport crash must leave: a log without gap,
// the session stopped cleanly (cold, its lease released) and the cut-off
// run open, for the next process to recover.
func afterCrash(t *testing.T, bin, home, id string) {
	t.Helper()
	evs := readStored(t, bin, home, id)
	ended := map[string]bool{}
	var runs []string
	for i, e := range evs {
		if e.Seq != int64(i+1) {
			t.Fatalf("event %d has seq %d", i, e.Seq)
		}
		var p struct {
			RunID string `json:"run_id"`
		}
		_ = json.Unmarshal(e.Payload, &p)
		switch e.Kind {
		case event.RunStarted:
			runs = append(runs, p.RunID)
		case event.RunEnded:
			ended[p.RunID] = true
		}
	}
	if len(runs) != 1 || ended[runs[0]] {
		t.Fatalf("want one cut-off run, got runs %v, ended %v", runs, ended)
	}
	store, err := persistence.Open(filepath.Join(home, "troupe.db"), persistence.Options{})
	testkit.NoError(t, err)
	defer store.Close()
	ctx := context.Background()
	meta, err := store.Session(ctx, id)
	testkit.NoError(t, err)
	testkit.Equal(t, meta.Status, persistence.StatusCold)
	holder, err := store.Lease(ctx, id)
	testkit.NoError(t, err)
	if holder != nil {
		t.Fatalf("lease still held by pid %d", holder.PID)
	}
}

// A panic in the rpc connection mid-reply is contained by the transports
// supervisor: what it had written still reaches the host, the process
// exits 1 naming the failure after the ordinary shutdown (sessions stopped
// cold, leases released, the store closed), and the next process recovers
// the cut-off run from the log.
func TestRPCTransportCrashIsContained(t *testing.T) {
	bin := testkit.BuildTroupeTags(t, "troupe_faults")
	srv := llmserver.New(t, llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.Text("Partial"), llmserver.Delay(30*time.Second), llmserver.Text(" never")),
		llmserver.Steps(llmserver.Text("Recovered.")),
	}})
	home := t.TempDir()
	env := []string{"OPENAI_BASE_URL=" + srv.URL() + "/v1", "OPENAI_API_KEY=", faultEnv}
	args := []string{"--mode", "rpc", "--home", home, "--provider", "openai", "--model", "tiny"}
	p := testkit.Start(t, bin, env, args...)
	fmt.Fprintln(p.Stdin, `{"id":"1","type":"prompt","message":"talk slowly"}`)
	readUntil(t, p, `"text_delta"`)
	fmt.Fprintln(p.Stdin, `{"id":"2","type":"get_state"}`)
	var state struct {
		Data struct {
			SessionID string `json:"sessionId"`
		} `json:"data"`
	}
	testkit.NoError(t, json.Unmarshal([]byte(readUntil(t, p, `"id":"2"`)), &state))
	id := state.Data.SessionID

	// The answer the connection wrote just before it crashed still goes
	// out: its writer finishes its queue first.
	fmt.Fprint(p.Stdin, `{"id":"3","type":"get_state"}`+"\n"+`{"id":"boom","type":"get_state"}`+"\n")
	readUntil(t, p, `"id":"3"`)
	testkit.Equal(t, p.Wait(t, 30*time.Second), 1)
	if want := "troupe rpc: transport rpc failed: injected fault: boom"; !strings.Contains(p.Stderr(), want) {
		t.Fatalf("stderr lacks %q:\n%s", want, p.Stderr())
	}
	afterCrash(t, bin, home, id)

	// The next process on the session resumes the cut-off run.
	p = testkit.Start(t, bin, env[:2], append(args, "--session", id)...)
	readUntil(t, p, `"agent_end"`)
	p.Stdin.Close()
	testkit.Equal(t, p.Wait(t, 30*time.Second), 0)
	var interrupted, endTurn bool
	for _, e := range readStored(t, bin, home, id) {
		interrupted = interrupted || e.Kind == event.RunInterrupted
		endTurn = endTurn || e.Kind == event.RunEnded && strings.Contains(string(e.Payload), `"end_turn"`)
	}
	if !interrupted || !endTurn {
		t.Fatalf("recovery: run.interrupted %v, run.ended end_turn %v", interrupted, endTurn)
	}
}

// The json-stream transport's crash is told to the host in the protocol's
// own shape before the process exits 1.
func TestJSONStreamTransportCrashIsContained(t *testing.T) {
	bin := testkit.BuildTroupeTags(t, "troupe_faults")
	srv := llmserver.New(t, llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.Text("Long"), llmserver.Delay(30*time.Second), llmserver.Text(" answer")),
	}})
	home := t.TempDir()
	env := []string{"OPENAI_BASE_URL=" + srv.URL() + "/v1", "OPENAI_API_KEY=", faultEnv}
	p := testkit.Start(t, bin, env, "--json-stream", "--home", home, "--provider", "openai", "--model", "tiny")
	var ready struct {
		SessionID string `json:"session_id"`
	}
	testkit.NoError(t, json.Unmarshal([]byte(readUntil(t, p, `"ready"`)), &ready))
	fmt.Fprintln(p.Stdin, `{"type":"message","msg_id":"m1","input":"go on"}`)
	readUntil(t, p, `"text_delta"`)
	fmt.Fprintln(p.Stdin, `{"type":"ping","note":"boom"}`)
	line := readUntil(t, p, `"type":"error"`)
	var e struct {
		Error struct {
			Code, Message string
			Retryable     bool
		}
	}
	testkit.NoError(t, json.Unmarshal([]byte(line), &e))
	if e.Error.Code != "internal_error" || !strings.Contains(e.Error.Message, "transport json-stream failed: injected fault: boom") || e.Error.Retryable {
		t.Fatalf("error line %s", line)
	}
	testkit.Equal(t, p.Wait(t, 30*time.Second), 1)
	if !strings.Contains(p.Stderr(), "troupe json-stream: transport json-stream failed") {
		t.Fatalf("stderr:\n%s", p.Stderr())
	}
	afterCrash(t, bin, home, ready.SessionID)
}
