package main

import (
	"encoding/json"
	"strings"
	"syscall"
	"testing"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/acpclient"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// A client that watched two turns live (another client's prompts: it saw
// each prompt_received, the chunks, a tool call, turn_complete), then lost
// the daemon, reattaches to a new daemon on the same home after_message
// the update.messageId of any update it saw, as Hydra's TUI and shim do:
// it gets exactly the updates that stood after it, coalesced as a replay
// is (a message's consecutive chunks joined, a tool call's last update),
// each with the id it had live (REST's history and events show the same
// ids): nothing it saw, nothing missing. A
// prompt's message id, which an older troupe stamped on a turn's updates,
// resumes after that prompt's prompt_received, as Hydra resolves it.
// State updates (usage) are not replayed as history: their current value
// closes a replay once.
func TestDaemonACPReattachAfterAnyUpdate(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	env, model := llmEnv(t,
		llmserver.Steps(llmserver.Text("one "), llmserver.Text("two "), llmserver.ToolCall("c1", "bash", `{"command":"echo hi"}`)),
		llmserver.Steps(llmserver.Text("three "), llmserver.Text("four")),
		llmserver.Steps(llmserver.Text("five "), llmserver.Text("six")))
	args := append(model, "--approval-mode", "yolo")
	d := startDaemon(t, home, env, args...)
	a := d.dialACP(t, "editor")
	sid, _ := a.NewSession(work)
	w := d.dialACP(t, "watcher")
	w.Attach(map[string]any{"sessionId": sid, "historyPolicy": "none"})
	var live []acpclient.Frame
	for _, text := range []string{"first", "second"} {
		if f := a.WaitAnswer(a.Prompt(sid, text)); f.Error != nil {
			t.Fatalf("prompt %s: %s", text, f.Raw)
		}
		live = append(live, w.Until(func(f acpclient.Frame) bool { return f.IsUpdate("turn_complete") })...)
	}
	seen := recorded(t, live)
	testkit.Equal(t, acpclient.Count(seen, "prompt_received"), 2)
	testkit.Equal(t, acpclient.Count(seen, "turn_complete"), 2)
	d.proc.Signal(syscall.SIGTERM)
	testkit.Equal(t, d.proc.Wait(t, acpWait), 0)
	d = startDaemon(t, home, env, args...)

	// Every id is its own, and the same as the update's _meta anchor.
	ids := map[string]bool{}
	for _, f := range seen {
		u := decodeUpdate(t, f)
		if ids[u.id] || u.id != u.anchor {
			t.Fatalf("update id %q twice or not its anchor: %s", u.id, f.Raw)
		}
		ids[u.id] = true
	}
	// REST shows the same updates under the same ids: /history every one,
	// /events the kinds it serves.
	rest := map[string]string{}
	for _, m := range ndjson(t, d.do(t, "GET", "/v1/sessions/"+sid+"/history", nil)) {
		u := m["params"].(map[string]any)["update"].(map[string]any)
		if id, _ := u["messageId"].(string); id != "" {
			rest[id] = u["sessionUpdate"].(string)
		}
	}
	for _, f := range seen {
		u := decodeUpdate(t, f)
		testkit.Equal(t, rest[u.id], u.kind)
	}
	for _, r := range d.eventRows(t, "/v1/sessions/"+sid+"/events?kinds=prompt_received,turn_complete,tool_call,tool_call_update") {
		if !ids[r.MessageID] || r.Update["messageId"] != r.MessageID {
			t.Fatalf("/events row %+v: its messageId is no update the client saw", r)
		}
	}
	cuts := map[string]int{
		"first prompt_received":  index(t, seen, "prompt_received", 0),
		"mid-message":            index(t, seen, "agent_message_chunk", 0),
		"tool_call":              index(t, seen, "tool_call", 0),
		"mid tool call":          index(t, seen, "tool_call_update", 0),
		"first turn_complete":    index(t, seen, "turn_complete", 0),
		"second prompt_received": index(t, seen, "prompt_received", 1),
		"last chunk":             index(t, seen, "agent_message_chunk", -1),
		"last update":            len(seen) - 1,
	}
	for name, i := range cuts {
		t.Run(name, func(t *testing.T) {
			c := d.dialACP(t, "tui")
			replayed, res := c.Attach(map[string]any{"sessionId": sid, "historyPolicy": "after_message", "afterMessageId": decodeUpdate(t, seen[i]).id})
			testkit.Equal(t, res.HistoryPolicy, "after_message")
			testkit.Equal(t, lines(t, recorded(t, replayed)), lines(t, coalesced(t, seen[i+1:])))
		})
	}

	// State is not replayed as history: its current value closes the
	// replay, once (pending_only: alone), as the last usage the client saw
	// live says.
	var lastUsage string
	for _, f := range live {
		if f.IsUpdate("usage_update") {
			lastUsage = string(updateJSON(t, f))
		}
	}
	for _, policy := range []string{"full", "pending_only"} {
		t.Run("state "+policy, func(t *testing.T) {
			c := d.dialACP(t, "tui")
			replayed, _ := c.Attach(map[string]any{"sessionId": sid, "historyPolicy": policy})
			testkit.Equal(t, acpclient.Count(replayed, "usage_update"), 1)
			last := replayed[len(replayed)-1]
			testkit.Equal(t, last.IsUpdate("usage_update"), true)
			testkit.Equal(t, string(updateJSON(t, last)), lastUsage)
			if policy == "pending_only" {
				testkit.Equal(t, len(recorded(t, replayed)), 0)
			}
		})
	}

	// An older troupe's prompt id: after its prompt_received.
	t.Run("prompt id", func(t *testing.T) {
		i := index(t, seen, "prompt_received", 1)
		c := d.dialACP(t, "shim")
		replayed, res := c.Attach(map[string]any{"sessionId": sid, "historyPolicy": "after_message", "afterMessageId": decodeUpdate(t, seen[i]).message})
		testkit.Equal(t, res.HistoryPolicy, "after_message")
		got := recorded(t, replayed)
		testkit.Equal(t, lines(t, got), lines(t, coalesced(t, seen[i+1:])))
		testkit.Equal(t, acpclient.Count(got, "prompt_received"), 0)
		testkit.Equal(t, acpclient.Count(got, "turn_complete"), 1)
	})
}

// recorded are the session/updates among fs that carry an id: the
// recorded ones, not the state a replay closes with.
func recorded(t testing.TB, fs []acpclient.Frame) []acpclient.Frame {
	t.Helper()
	var out []acpclient.Frame
	for _, f := range fs {
		if f.Method == "session/update" && decodeUpdate(t, f).id != "" {
			out = append(out, f)
		}
	}
	return out
}

// index is the position in fs of the n-th update of kind (the last for
// -1).
func index(t testing.TB, fs []acpclient.Frame, kind string, n int) int {
	t.Helper()
	var at []int
	for i, f := range fs {
		if f.IsUpdate(kind) {
			at = append(at, i)
		}
	}
	if n < 0 {
		n += len(at)
	}
	if n < 0 || n >= len(at) {
		t.Fatalf("no %s number %d among %d", kind, n, len(at))
	}
	return at[n]
}

// coalesced is what a replay makes of the live updates fs: consecutive
// chunks of one kind and message joined under the last one's id, a tool
// call's tool_call_updates reduced to the last, where it stands.
func coalesced(t testing.TB, fs []acpclient.Frame) []seenUpdate {
	t.Helper()
	var out []seenUpdate
	lastCall := map[string]int{}
	for _, f := range fs {
		cur := decodeUpdate(t, f)
		cur.anchor = ""
		if n := len(out); n > 0 && strings.HasSuffix(cur.kind, "_chunk") {
			if prev := &out[n-1]; prev.kind == cur.kind && prev.message == cur.message {
				prev.text += cur.text
				prev.id = cur.id
				continue
			}
		}
		if cur.kind == "tool_call_update" {
			if i, ok := lastCall[cur.call]; ok {
				out[i].kind = "" // replaced by this one
			}
			lastCall[cur.call] = len(out)
		}
		out = append(out, cur)
	}
	kept := out[:0]
	for _, u := range out {
		if u.kind != "" {
			kept = append(kept, u)
		}
	}
	return kept
}

// updateJSON is a session/update's update object.
func updateJSON(t testing.TB, f acpclient.Frame) json.RawMessage {
	t.Helper()
	var p struct {
		Update json.RawMessage `json:"update"`
	}
	f.DecodeParams(t, &p)
	return p.Update
}

// seenUpdate is what these tests read of an update: its kind, id (and
// _meta anchor), text (a chunk's), ACP message and tool call.
type seenUpdate struct{ kind, id, anchor, text, message, call string }

func decodeUpdate(t testing.TB, f acpclient.Frame) seenUpdate {
	t.Helper()
	var p struct {
		Update struct {
			SessionUpdate string          `json:"sessionUpdate"`
			MessageID     string          `json:"messageId"`
			ToolCallID    string          `json:"toolCallId"`
			Content       json.RawMessage `json:"content"`
			Meta          struct {
				Hydra struct {
					ACPMessageID string `json:"acpMessageId"`
				} `json:"hydra-acp"`
			} `json:"_meta"`
		} `json:"update"`
		Meta struct {
			Hydra struct {
				MessageID string `json:"messageId"`
			} `json:"hydra-acp"`
		} `json:"_meta"`
	}
	f.DecodeParams(t, &p)
	u := p.Update
	var block struct {
		Text string `json:"text"`
	}
	if strings.HasSuffix(u.SessionUpdate, "_chunk") {
		testkit.NoError(t, json.Unmarshal(u.Content, &block))
	}
	return seenUpdate{kind: u.SessionUpdate, id: u.MessageID, anchor: p.Meta.Hydra.MessageID, text: block.Text, message: u.Meta.Hydra.ACPMessageID, call: u.ToolCallID}
}

// lines is one line per update: kind, id, text.
func lines(t testing.TB, us any) string {
	t.Helper()
	var list []seenUpdate
	switch v := us.(type) {
	case []seenUpdate:
		list = v
	case []acpclient.Frame:
		for _, f := range v {
			list = append(list, decodeUpdate(t, f))
		}
	}
	var b strings.Builder
	for _, u := range list {
		b.WriteString(u.kind + " " + u.id + " " + u.text + "\n")
	}
	return b.String()
}
