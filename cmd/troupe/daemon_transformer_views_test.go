package main

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/acpclient"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// historyShown is the agent text of a session's REST history and how many
// updates of each kind it holds.
func historyShown(t *testing.T, d *daemonProc, id string) (string, map[string]int) {
	t.Helper()
	return shownIn(t, historyLines(t, d, id))
}

// shownIn is the agent text of REST history lines and how many updates of
// each kind they hold.
func shownIn(t *testing.T, lines []string) (string, map[string]int) {
	t.Helper()
	var text strings.Builder
	kinds := map[string]int{}
	for _, l := range lines {
		var h struct {
			Params struct {
				Update struct {
					SessionUpdate string `json:"sessionUpdate"`
					Content       struct {
						Text string `json:"text"`
					} `json:"content"`
				} `json:"update"`
			} `json:"params"`
		}
		testkit.NoError(t, json.Unmarshal([]byte(l), &h))
		u := h.Params.Update
		kinds[u.SessionUpdate]++
		if u.SessionUpdate == "agent_message_chunk" {
			text.WriteString(u.Content.Text)
		}
	}
	return text.String(), kinds
}

func transcriptOf(t *testing.T, d *daemonProc, id string) string {
	t.Helper()
	res := d.do(t, "GET", "/v1/sessions/"+id+"/transcript?tools=1", nil)
	b, err := io.ReadAll(res.Body)
	testkit.NoError(t, err)
	testkit.Equal(t, res.StatusCode, http.StatusOK)
	return string(b)
}

// A transformer's rewrites show the same in every view of the session's
// updates: the REST history, the CLI's transcript; a fork's transcript
// and export show the parent's part as its clients saw it, and a bundle
// of that fork imported into another daemon replays it so, over ACP and
// REST alike.
func TestDaemonTransformerRewritesShowEverywhere(t *testing.T) {
	g := newGateHome(t, map[string]string{"PLUGIN_UPDATES": "upper"}, nil, llmserver.Steps(llmserver.Text("hello "), llmserver.Text("world")))
	d := g.start(t)
	a, w, sid := watchedSession(t, d, t.TempDir())
	got, _ := gatedTurn(t, a, w, sid, "hi")
	testkit.Equal(t, acpclient.Chunks(t, got), "HELLO WORLD")

	text, _ := historyShown(t, d, sid)
	testkit.Equal(t, text, "HELLO WORLD")
	md := cli(t, nil, "", "session", "transcript", sid, "--home", d.home).ok(t, "session transcript")
	if !strings.Contains(md, "HELLO WORLD") || strings.Contains(md, "hello world") {
		t.Fatalf("the transcript does not show the rewritten reply:\n%s", md)
	}

	// A fork (hydra-acp/session/fork) inherits the parent's turn.
	fid := a.Call("hydra-acp/session/fork", map[string]any{"sessionId": sid})
	var fork struct {
		SessionID string `json:"sessionId"`
	}
	testkit.NoError(t, json.Unmarshal(a.WaitAnswer(fid).Result, &fork))
	if md := transcriptOf(t, d, fork.SessionID); !strings.Contains(md, "HELLO WORLD") || strings.Contains(md, "hello world") {
		t.Fatalf("the fork's transcript does not show the rewritten reply:\n%s", md)
	}
	// Its ACP replay shows the parent's turn as the parent's clients saw it.
	testkit.Equal(t, acpclient.Chunks(t, fullReplay(t, d, fork.SessionID)), "HELLO WORLD")
	res := d.do(t, "GET", "/v1/sessions/"+fork.SessionID+"/export", nil)
	bundle, err := io.ReadAll(res.Body)
	testkit.NoError(t, err)
	testkit.Equal(t, res.StatusCode, http.StatusOK)
	if strings.Contains(string(bundle), `"text":"hello "`) && !strings.Contains(string(bundle), `"text":"HELLO `) {
		t.Fatalf("the bundle's history shows the update as recorded")
	}

	// Imported into another daemon, with no transformer: its log carries
	// the decisions, renumbered to the events it gave them.
	other := startDaemon(t, t.TempDir(), g.env, "--provider", "openai", "--model", "tiny")
	var imported struct {
		SessionID string `json:"sessionId"`
	}
	other.call(t, "POST", "/v1/sessions/import", map[string]any{"bundle": json.RawMessage(bundle)}, http.StatusCreated, &imported)
	text, _ = historyShown(t, other, imported.SessionID)
	testkit.Equal(t, text, "HELLO WORLD")
	testkit.Equal(t, acpclient.Chunks(t, fullReplay(t, other, imported.SessionID)), "HELLO WORLD")
	if md := transcriptOf(t, other, imported.SessionID); !strings.Contains(md, "HELLO WORLD") {
		t.Fatalf("the import's transcript does not show the rewritten reply:\n%s", md)
	}
}

// A transformer's drops show the same everywhere: the dropped tool calls
// are absent from the REST events (one session's and the merged), the
// history and the transcript, of the session and of its fork, and from
// the fork's bundle imported elsewhere (the turn's last decisions were
// recorded after the turn ended, where the fork starts: the bundle carries
// them too).
func TestDaemonTransformerDropsShowEverywhere(t *testing.T) {
	g := newGateHome(t, map[string]string{"PLUGIN_UPDATES": "droptools"}, nil,
		llmserver.Steps(llmserver.ToolCall("c1", "read", `{"path":"notes.txt"}`)), llmserver.Steps(llmserver.Text("done")))
	d := g.start(t)
	dir := t.TempDir()
	testkit.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("secret"), 0o600))
	a, w, sid := watchedSession(t, d, dir)
	gatedTurn(t, a, w, sid, "read it")

	for _, path := range []string{"/v1/sessions/" + sid + "/events", "/v1/sessions/events"} {
		if rows := d.eventRows(t, path+"?kinds=tool_call,tool_call_update"); len(rows) != 0 {
			t.Fatalf("%s shows the dropped tool calls: %+v", path, rows)
		}
		if rows := d.eventRows(t, path+"?kinds=turn_complete"); len(rows) != 1 {
			t.Fatalf("%s: turn_complete rows %+v", path, rows)
		}
	}
	text, kinds := historyShown(t, d, sid)
	testkit.Equal(t, text, "done")
	testkit.Equal(t, kinds["tool_call"]+kinds["tool_call_update"], 0)
	testkit.Equal(t, kinds["turn_complete"], 1)

	var fork struct {
		SessionID string `json:"sessionId"`
	}
	d.call(t, "POST", "/v1/sessions/"+sid+"/fork", map[string]any{}, http.StatusCreated, &fork)
	for _, id := range []string{sid, fork.SessionID} {
		md := transcriptOf(t, d, id)
		if strings.Contains(md, "### Tool") || strings.Contains(md, "secret") || !strings.Contains(md, "done") {
			t.Fatalf("the transcript of %s shows the dropped call:\n%s", id, md)
		}
	}
	// The fork's ACP replay drops them too, those decided after the
	// parent's turn ended (where the fork starts) among them.
	forkReplay := fullReplay(t, d, fork.SessionID)
	testkit.Equal(t, acpclient.Count(forkReplay, "tool_call")+acpclient.Count(forkReplay, "tool_call_update"), 0)
	testkit.Equal(t, acpclient.Chunks(t, forkReplay), "done")
	res := d.do(t, "GET", "/v1/sessions/"+fork.SessionID+"/export", nil)
	bundle, err := io.ReadAll(res.Body)
	testkit.NoError(t, err)
	testkit.Equal(t, res.StatusCode, http.StatusOK)
	other := startDaemon(t, t.TempDir(), g.env, "--provider", "openai", "--model", "tiny")
	var imported struct {
		SessionID string `json:"sessionId"`
	}
	other.call(t, "POST", "/v1/sessions/import", map[string]any{"bundle": json.RawMessage(bundle)}, http.StatusCreated, &imported)
	text, kinds = historyShown(t, other, imported.SessionID)
	testkit.Equal(t, text, "done")
	testkit.Equal(t, kinds["tool_call"]+kinds["tool_call_update"], 0)
	replayed := fullReplay(t, other, imported.SessionID)
	testkit.Equal(t, acpclient.Count(replayed, "tool_call")+acpclient.Count(replayed, "tool_call_update"), 0)
	testkit.Equal(t, acpclient.Chunks(t, replayed), "done")
}

// A history followed through a turn whose every update the transformer
// takes 200 ms to rewrite waits for each decision, as ACP clients do: it
// never shows the reply as recorded. So does a snapshot read meanwhile.
func TestDaemonTransformerFollowedHistoryWaitsForDecisions(t *testing.T) {
	g := newGateHome(t, map[string]string{"PLUGIN_UPDATES": "slowupper"}, nil, llmserver.Steps(llmserver.Text("hello "), llmserver.Text("world")))
	d := g.start(t)
	a := d.dialACP(t, "editor")
	sid, _ := a.NewSession(t.TempDir())
	f := follow(t, d, sid)
	id := a.Prompt(sid, "hi")
	got := a.Until(func(f acpclient.Frame) bool { return f.Answers(id) })
	testkit.Equal(t, acpclient.Chunks(t, got), "HELLO WORLD")
	text, _ := shownIn(t, f.until(t, "turn_complete", 1))
	testkit.Equal(t, text, "HELLO WORLD")
}

// A session a transformer attached itself to mid-way: its bundle holds the
// transformer.attached an import leaves out, so every later event gets
// another seq there; the decisions are renumbered with them, and the
// import replays what the source does, over ACP and REST.
func TestDaemonTransformerAttachedImportRenumbers(t *testing.T) {
	g := newGateHome(t, map[string]string{"PLUGIN_UPDATES": "upper", "PLUGIN_COMMANDS": "1"}, map[string]any{"defaultTransformers": []string{}})
	d := g.start(t)
	waitProbe(t, g.log, "commands/register")
	a, w, sid := watchedSession(t, d, t.TempDir())
	gatedTurn(t, a, w, sid, "before")
	gatedTurn(t, a, w, sid, "/hydra tr attach")
	got, _ := gatedTurn(t, a, w, sid, "after")
	testkit.Equal(t, acpclient.Chunks(t, got), "FINE")
	source := acpclient.Chunks(t, fullReplay(t, d, sid))
	if !strings.HasPrefix(source, "fine") || !strings.HasSuffix(source, "FINE") {
		t.Fatalf("the source replays %q", source)
	}

	res := d.do(t, "GET", "/v1/sessions/"+sid+"/export", nil)
	bundle, err := io.ReadAll(res.Body)
	testkit.NoError(t, err)
	testkit.Equal(t, res.StatusCode, http.StatusOK)
	if !strings.Contains(string(bundle), `"kind":"transformer.attached"`) {
		t.Fatal("the bundle lacks the transformer.attached this test is about")
	}
	other := startDaemon(t, t.TempDir(), g.env, "--provider", "openai", "--model", "tiny")
	var imported struct {
		SessionID string `json:"sessionId"`
	}
	other.call(t, "POST", "/v1/sessions/import", map[string]any{"bundle": json.RawMessage(bundle)}, http.StatusCreated, &imported)
	testkit.Equal(t, acpclient.Chunks(t, fullReplay(t, other, imported.SessionID)), source)
	text, _ := historyShown(t, other, imported.SessionID)
	testkit.Equal(t, text, source)
}

// While the chain holds a turn's first agent update (a claim never
// discharged), the REST views show nothing past it, as ACP clients are
// shown nothing: the turn is over in the log, yet neither its events nor
// its transcript show it; a history read meanwhile waits for the claim to
// time out, then shows the turn as recorded (fail-open), as do the others.
func TestDaemonTransformerHeldTurnHiddenFromRest(t *testing.T) {
	g := newGateHome(t, map[string]string{"PLUGIN_UPDATES": "abandon"}, map[string]any{"claimTimeout": "8s"})
	d := g.start(t)
	a := d.dialACP(t, "editor")
	sid, _ := a.NewSession(t.TempDir())
	id := a.Prompt(sid, "hi")
	testkit.Eventually(t, 5*time.Second, "the turn's end in the log", func() bool {
		out := cli(t, nil, "", "events", sid, "--home", d.home).ok(t, "events")
		return strings.Contains(out, `"kind":"run.ended"`)
	})
	if rows := d.eventRows(t, "/v1/sessions/"+sid+"/events?kinds=turn_complete"); len(rows) != 0 {
		t.Fatalf("events show a turn its clients are not shown yet: %+v", rows)
	}
	if md := transcriptOf(t, d, sid); strings.Contains(md, "fine") {
		t.Fatalf("the transcript shows a reply its clients are not shown yet:\n%s", md)
	}
	text, kinds := historyShown(t, d, sid)
	testkit.Equal(t, text, "fine")
	testkit.Equal(t, kinds["turn_complete"], 1)
	a.Until(func(f acpclient.Frame) bool { return f.Answers(id) })
	testkit.Equal(t, len(d.eventRows(t, "/v1/sessions/"+sid+"/events?kinds=turn_complete")), 1)
	if md := transcriptOf(t, d, sid); !strings.Contains(md, "fine") {
		t.Fatalf("the transcript lacks the released reply:\n%s", md)
	}
}

// History reads waiting on a held turn wait outside the store: more of
// them than the store has pooled readers leave the daemon's other reads
// (another session's entry, an attach's replay) answering while they all
// still wait.
func TestDaemonTransformerHeldHistoriesHoldNoReader(t *testing.T) {
	g := newGateHome(t, map[string]string{"PLUGIN_UPDATES": "abandon"}, map[string]any{"claimTimeout": "8s"})
	d := g.start(t)
	a := d.dialACP(t, "editor")
	other, _ := a.NewSession(t.TempDir())
	sid, _ := a.NewSession(t.TempDir())
	id := a.Prompt(sid, "hi")
	testkit.Eventually(t, 5*time.Second, "the turn's end in the log", func() bool {
		out := cli(t, nil, "", "events", sid, "--home", d.home).ok(t, "events")
		return strings.Contains(out, `"kind":"run.ended"`)
	})
	const waiting = 8 // twice the store's pooled readers
	done := make(chan error, waiting)
	for range waiting {
		go func() {
			req, err := http.NewRequest("GET", d.url+"/v1/sessions/"+sid+"/history", nil)
			if err != nil {
				done <- err
				return
			}
			req.Header.Set("Authorization", "Bearer "+d.token)
			res, err := http.DefaultClient.Do(req)
			if err == nil {
				_, err = io.Copy(io.Discard, res.Body)
				res.Body.Close()
			}
			done <- err
		}()
	}
	// The histories wait on the held turn until the claim is abandoned; the
	// other reads answer meanwhile.
	var e sessionEntry
	d.call(t, "GET", "/v1/sessions/"+other, nil, http.StatusOK, &e)
	testkit.Equal(t, e.SessionID, other)
	w := d.dialACP(t, "watcher")
	w.Attach(map[string]any{"sessionId": other, "historyPolicy": "full"})
	select {
	case err := <-done:
		t.Fatalf("a held history ended before the claim was abandoned (err %v): the other reads waited for it", err)
	default:
	}
	a.Until(func(f acpclient.Frame) bool { return f.Answers(id) })
	for range waiting {
		testkit.NoError(t, <-done)
	}
}
