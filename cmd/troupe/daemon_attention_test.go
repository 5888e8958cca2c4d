package main

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

type attentionFlags struct {
	Flags []struct {
		SessionID, Source, Reason string
		RaisedAt                  int64
		Payload                   struct {
			ToolCall struct{ ToolCallID string }
			Options  []struct{ OptionID string }
		}
	}
}

// A permission request waiting in another process shows as an attention
// flag, read from the store, and as the session's awaitingInput (REST
// entries, ACP session/list) though no client is attached; answered, it is
// gone.
func TestDaemonAttentionShowsPendingPermissions(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	args, _ := json.Marshal(map[string]string{"command": "echo hi"})
	env, model := llmEnv(t, llmserver.Steps(llmserver.ToolCall("c1", "bash", string(args))), llmserver.Steps(llmserver.Text("ok")))
	d := startDaemon(t, home, env, model...)
	id := d.create(t, work)
	d.do(t, "POST", "/v1/sessions/"+id+"/kill", nil)

	js := testkit.Start(t, testkit.BuildTroupe(t), env, append([]string{"--json-stream", "--home", home, "--resume", id}, model...)...)
	expectLine(t, js, `"type":"ready"`)
	_, _ = js.Stdin.Write([]byte(`{"type":"message","msg_id":"m1","input":"say hi"}` + "\n"))
	expectLine(t, js, `"type":"tool_request"`)

	var got attentionFlags
	d.call(t, "GET", "/v1/sessions/"+id+"/attention", nil, http.StatusOK, &got)
	if len(got.Flags) != 1 || got.Flags[0].Reason != "permission" || got.Flags[0].Source != "daemon" ||
		got.Flags[0].Payload.ToolCall.ToolCallID != "c1" || len(got.Flags[0].Payload.Options) == 0 || got.Flags[0].RaisedAt == 0 {
		t.Fatalf("attention: %+v", got)
	}
	d.call(t, "GET", "/v1/sessions/attention?source=daemon", nil, http.StatusOK, &got)
	if len(got.Flags) != 1 || got.Flags[0].SessionID != id {
		t.Fatalf("attention by source: %+v", got)
	}
	d.call(t, "GET", "/v1/sessions/attention?source=planner", nil, http.StatusOK, &got)
	testkit.Equal(t, len(got.Flags), 0)
	// awaitingInput says so too, with no client attached anywhere.
	entry, listed := awaitingEntry(t, d, id)
	testkit.Equal(t, entry.AttachedClients, 0)
	testkit.Equal(t, entry.AwaitingInput, true)
	testkit.Equal(t, listed.AwaitingInput, true)
	testkit.Equal(t, acpListedAwaiting(t, d, id), true)

	_, _ = js.Stdin.Write([]byte(`{"type":"tool_approve","call_id":"c1","scope":"once"}` + "\n"))
	expectLine(t, js, `"type":"stream_end"`)
	d.call(t, "GET", "/v1/sessions/"+id+"/attention", nil, http.StatusOK, &got)
	testkit.Equal(t, len(got.Flags), 0)
	entry, listed = awaitingEntry(t, d, id)
	testkit.Equal(t, entry.AwaitingInput, false)
	testkit.Equal(t, listed.AwaitingInput, false)
	testkit.Equal(t, acpListedAwaiting(t, d, id), false)
	wantError(t, d.do(t, "GET", "/v1/sessions/nope/attention", nil), http.StatusNotFound)
}

func expectLine(t *testing.T, p *testkit.Proc, want string) {
	t.Helper()
	for {
		line, ok := p.ReadLine(30 * time.Second)
		if !ok {
			t.Fatalf("no line with %s; stderr:\n%s", want, p.Stderr())
		}
		if strings.Contains(line, want) {
			return
		}
	}
}

// awaitingEntry is session id's entry from GET /v1/sessions/:id and from
// the list.
func awaitingEntry(t *testing.T, d *daemonProc, id string) (sessionEntry, sessionEntry) {
	t.Helper()
	var one sessionEntry
	d.call(t, "GET", "/v1/sessions/"+id, nil, http.StatusOK, &one)
	var list struct{ Sessions []sessionEntry }
	d.call(t, "GET", "/v1/sessions", nil, http.StatusOK, &list)
	for _, e := range list.Sessions {
		if e.SessionID == id {
			return one, e
		}
	}
	t.Fatalf("%s is not listed", id)
	return one, sessionEntry{}
}

// acpListedAwaiting is session id's awaitingInput in an ACP session/list,
// from a client attached to nothing.
func acpListedAwaiting(t *testing.T, d *daemonProc, id string) bool {
	t.Helper()
	c := d.dialACP(t, "lister")
	defer c.WS.Close()
	var res struct {
		Sessions []struct {
			SessionID string `json:"sessionId"`
			Meta      struct {
				Hydra struct{ AwaitingInput bool } `json:"hydra-acp"`
			} `json:"_meta"`
		}
	}
	c.WaitAnswer(c.Call("session/list", map[string]any{})).Decode(t, &res)
	for _, s := range res.Sessions {
		if s.SessionID == id {
			return s.Meta.Hydra.AwaitingInput
		}
	}
	t.Fatalf("session/list lacks %s", id)
	return false
}

// A session with no flag raised answers {"flags": []}, an empty list as
// Hydra's clients iterate it, not null.
func TestDaemonAttentionNoneIsAnEmptyList(t *testing.T) {
	env, model := llmEnv(t)
	d := startDaemon(t, t.TempDir(), env, model...)
	id := d.create(t, t.TempDir())
	res := d.do(t, "GET", "/v1/sessions/"+id+"/attention", nil)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	testkit.NoError(t, err)
	testkit.Equal(t, strings.TrimSpace(string(b)), `{"flags":[]}`)
}
