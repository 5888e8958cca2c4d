package main

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// A session the killed daemon hosted is cold to the next one, over REST
// and ACP alike, though the store's row still says live (its lease is a
// dead process's); attaching wakes it and it is live again. A session
// another live process hosts is live: TestDaemonServesOtherProcessesSessionsReadOnly.
func TestDaemonStatusAfterSIGKILL(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	env, model := llmEnv(t, llmserver.Steps(llmserver.Text("hello")))
	// SIGKILLed below: that needs its own process.
	d := startDaemonBinary(t, home, env, model...)
	c := d.dialACP(t, "editor")
	sid, _ := c.NewSession(work)
	c.WaitAnswer(c.Prompt(sid, "hi"))

	status := func(d *daemonProc) (rest, acp string) {
		t.Helper()
		var e struct{ Status string }
		d.call(t, "GET", "/v1/sessions/"+sid, nil, http.StatusOK, &e)
		var list struct {
			Sessions []struct {
				SessionID string `json:"sessionId"`
				Meta      struct {
					Hydra struct {
						Status string `json:"status"`
					} `json:"hydra-acp"`
				} `json:"_meta"`
			} `json:"sessions"`
		}
		l := d.dialACP(t, "lister")
		testkit.NoError(t, json.Unmarshal(l.WaitAnswer(l.Call("session/list", map[string]any{})).Result, &list))
		for _, s := range list.Sessions {
			if s.SessionID == sid {
				return e.Status, s.Meta.Hydra.Status
			}
		}
		t.Fatalf("session/list lacks %s", sid)
		return "", ""
	}
	rest, acp := status(d)
	testkit.Equal(t, rest, "warm")
	testkit.Equal(t, acp, "warm")

	d.proc.Kill()
	testkit.Equal(t, d.proc.Wait(t, acpWait), -1)
	d = startDaemon(t, home, env, model...)
	rest, acp = status(d)
	testkit.Equal(t, rest, "cold")
	testkit.Equal(t, acp, "cold")

	d.dialACP(t, "editor").Attach(map[string]any{"sessionId": sid, "historyPolicy": "none"})
	rest, acp = status(d)
	testkit.Equal(t, rest, "warm")
	testkit.Equal(t, acp, "warm")
}
