package main

import (
	"net/http"
	"os/exec"
	"strings"
	"testing"

	"github.com/troupehq/troupe/runtime/proc"
	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/acpclient"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// transformedCount is how many update.transformed events sid's log has.
func transformedCount(t *testing.T, d *daemonProc, sid string) int {
	t.Helper()
	out, err := exec.Command(testkit.BuildTroupe(t), "events", sid, "--home", d.home).Output()
	testkit.NoError(t, err)
	return strings.Count(string(out), `"kind":"update.transformed"`)
}

// After a restart, a chained session woken by something other than an
// /acp client (here the daemon's own MCP server's session.prompt) runs its
// link all the same: the agent's reply goes through the response chain
// and its rewrite is in the log, so a client attaching later is shown the
// rewritten text.
func TestDaemonTransformerLinkRunsWhenWokenOffACP(t *testing.T) {
	g := newGateHome(t, map[string]string{"PLUGIN_UPDATES": "upper"}, nil, llmserver.Steps(llmserver.Text("hello")))
	// SIGKILLed below: that needs its own process.
	d := g.startBinary(t)
	a := d.dialACP(t, "editor")
	sid, _ := a.NewSession(t.TempDir())
	testkit.Equal(t, stopReasonOf(t, a.WaitAnswer(a.Prompt(sid, "hi"))), "end_turn")
	before := transformedCount(t, d, sid)
	if before == 0 {
		t.Fatal("the first turn's reply was not transformed")
	}

	d.proc.Kill()
	d.proc.Wait(t, acpWait)
	d = g.start(t)
	p := &httpPeer{url: d.url, token: d.token}
	initialize(t, p, "2025-11-25")
	callTool(t, p, 2, "session.prompt", map[string]any{"session_id": sid, "text": "again"}, nil)
	// session.prompt answers at the run's end, which does not wait for the
	// link to record its rewrite; a full replay does (the gate holds it
	// until then), so the log is read after it.
	testkit.Equal(t, acpclient.Chunks(t, fullReplay(t, d, sid)), "HELLOFINE")
	if after := transformedCount(t, d, sid); after <= before {
		t.Fatalf("the reply of a turn woken over MCP after the restart went through no chain: %d update.transformed, %d before", after, before)
	}
}

// A session that came live while its gating transformer was down is gated
// once the transformer is back: the replies after its return go through
// the response chain and are recorded as transformed, while what came
// before is not held from a client attaching meanwhile.
func TestDaemonTransformerGatesOnReturn(t *testing.T) {
	g := newGateHome(t, map[string]string{"PLUGIN_UPDATES": "upper"}, nil, llmserver.Steps(llmserver.Text("hello")))
	d := g.start(t)
	a := d.dialACP(t, "editor")
	sid, _ := a.NewSession(t.TempDir())
	testkit.Equal(t, stopReasonOf(t, a.WaitAnswer(a.Prompt(sid, "hi"))), "end_turn")
	// The link records the first reply's rewrite; nothing promises the
	// record before the prompt's answer.
	before := 1
	testkit.Eventually(t, acpWait, "the first reply transformed", func() bool { return transformedCount(t, d, sid) == before })
	a.WaitAnswer(a.Call("session/detach", map[string]any{"sessionId": sid}))

	first := d.plugin(t, "transformers", "tr")
	d.call(t, "POST", "/v1/transformers/tr/stop", nil, http.StatusOK, nil)
	testkit.Equal(t, d.plugin(t, "transformers", "tr").Status, "stopped")
	// "stopped" is the supervisor's word at once; the program ends after
	// (SIGTERM), and until it has it may still answer its chains.
	testkit.Eventually(t, acpWait, "tr's program gone", func() bool { return !proc.Alive(first.PID) })
	d.call(t, "POST", "/v1/sessions/"+sid+"/kill", nil, http.StatusAccepted, nil)
	testkit.Eventually(t, acpWait, "the session cold", func() bool {
		var e sessionEntry
		d.call(t, "GET", "/v1/sessions/"+sid, nil, http.StatusOK, &e)
		return e.Status == "cold"
	})
	p := &httpPeer{url: d.url, token: d.token}
	initialize(t, p, "2025-11-25")
	callTool(t, p, 2, "session.prompt", map[string]any{"session_id": sid, "text": "while it is down"}, nil)
	testkit.Equal(t, transformedCount(t, d, sid), before)

	d.call(t, "POST", "/v1/transformers/tr/start", nil, http.StatusOK, nil)
	d.waitRunning(t, "transformers", "tr", g.log, first.PID)
	// Its return gates the session from then on, and holds nothing of
	// what came before: a client attaching now gets its replay at once.
	testkit.Equal(t, acpclient.Chunks(t, fullReplay(t, d, sid)), "HELLOfine")
	callTool(t, p, 3, "session.prompt", map[string]any{"session_id": sid, "text": "it is back"}, nil)
	// The replay waits for the rewrite to be recorded (see above).
	testkit.Equal(t, acpclient.Chunks(t, fullReplay(t, d, sid)), "HELLOfineFINE")
	if after := transformedCount(t, d, sid); after <= before {
		t.Fatalf("the reply after the transformer came back went ungated: %d update.transformed, %d before", after, before)
	}
}
