package main

import (
	"net/http"
	"strings"
	"testing"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/acpclient"
)

// A session on an agent the catalogue names runs that agent's program:
// the prompt's reply streams from it (the catalogue's args, then the
// client's agentArgs), is recorded, and a second client attaching
// replays the same turn from the log. An id no catalogue names is still
// refused, -32005 over ACP and 400 over REST.
func TestDaemonExternalAgentStreamsAndReplays(t *testing.T) {
	home, _ := scriptedAgentHome(t, nil)
	d := startDaemon(t, home, nil)
	a := d.dialACP(t, "editor")
	sid := newAgentSession(t, a, t.TempDir(), "scripted", "--from-client")

	fs, stop := promptTurn(t, a, sid, "say hello,\nthink pondering\nchunks 3 x\nargs")
	testkit.Equal(t, stop, "end_turn")
	testkit.Equal(t, acpclient.Chunks(t, fs), "hello,xxxargs: --from-config --from-client")
	testkit.Equal(t, acpclient.Count(fs, "agent_thought_chunk"), 1)
	acpclient.RequireIncreasing(t, fs)

	b := d.dialACP(t, "browser")
	replayed, res := b.Attach(map[string]any{"sessionId": sid, "historyPolicy": "full"})
	testkit.Equal(t, res.Replayed, len(replayed))
	testkit.Equal(t, acpclient.Chunks(t, replayed), "hello,xxxargs: --from-config --from-client")

	// The attach answer names the agent and the agent's own session.
	var info struct {
		Meta struct {
			Hydra struct {
				AgentID           string `json:"agentId"`
				UpstreamSessionID string `json:"upstreamSessionId"`
			} `json:"hydra-acp"`
		} `json:"_meta"`
	}
	c := d.dialACP(t, "phone")
	c.WaitAnswer(c.Call("session/attach", map[string]any{"sessionId": sid, "historyPolicy": "none"})).Decode(t, &info)
	testkit.Equal(t, info.Meta.Hydra.AgentID, "scripted")
	if !strings.HasPrefix(info.Meta.Hydra.UpstreamSessionID, "up-") {
		t.Fatalf("upstreamSessionId %q is not the agent's", info.Meta.Hydra.UpstreamSessionID)
	}

	ans := a.WaitAnswer(a.Call("session/new", map[string]any{"cwd": t.TempDir(), "mcpServers": []any{},
		"_meta": map[string]any{"hydra-acp": map[string]any{"agentId": "nope"}}}))
	if ans.Error == nil || ans.Error.Code != -32005 {
		t.Fatalf("unknown agent: %s", ans.Raw)
	}
	var created map[string]string
	d.call(t, http.MethodPost, "/v1/sessions", map[string]any{"cwd": t.TempDir(), "agentId": "scripted"}, http.StatusCreated, &created)
	testkit.Equal(t, created["agentId"], "scripted")
	d.call(t, http.MethodPost, "/v1/sessions", map[string]any{"cwd": t.TempDir(), "agentId": "nope"}, http.StatusBadRequest, nil)
}
