package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/acpclient"
)

// POST /v1/agents/:id/sync starts the agent, follows its session/list
// pages and records each upstream session no session here records as a
// cold session on that agent, which a prompt then loads; a second sync
// records nothing new, and an agent the catalogue does not name is 404.
func TestDaemonAgentSyncRecordsRememberedSessions(t *testing.T) {
	home, state := scriptedAgentHome(t, nil)
	cwd := t.TempDir()
	// Three sessions the agent kept from before (as its own earlier runs
	// left them in its state directory).
	for i := 1; i <= 3; i++ {
		b, err := json.Marshal(map[string]any{"id": fmt.Sprintf("up-old-%d", i), "prompts": []string{fmt.Sprintf("first %d", i)},
			"replies": []string{"ok"}, "cwd": cwd, "updated": "2026-01-02T03:04:05Z"})
		testkit.NoError(t, err)
		testkit.NoError(t, os.WriteFile(filepath.Join(state, fmt.Sprintf("up-old-%d.json", i)), b, 0o600))
	}
	d := startDaemon(t, home, nil)
	a := d.dialACP(t, "editor")
	own := newAgentSession(t, a, cwd, "scripted")
	_, stop := promptTurn(t, a, own, "say mine")
	testkit.Equal(t, stop, "end_turn")

	type synced struct {
		SessionID, UpstreamSessionID, AgentID, Cwd, Title, UpdatedAt string
	}
	var res struct {
		Synced  []synced `json:"synced"`
		Skipped int      `json:"skipped"`
	}
	d.call(t, http.MethodPost, "/v1/agents/scripted/sync", nil, http.StatusOK, &res)
	testkit.Equal(t, len(res.Synced), 3)
	testkit.Equal(t, res.Skipped, 1) // the daemon's own session on it
	byUpstream := map[string]synced{}
	for _, s := range res.Synced {
		byUpstream[s.UpstreamSessionID] = s
	}
	old := byUpstream["up-old-2"]
	testkit.Equal(t, old.AgentID, "scripted")
	testkit.Equal(t, old.Cwd, cwd)
	testkit.Equal(t, old.Title, "first 2")
	testkit.Equal(t, old.UpdatedAt, "2026-01-02T03:04:05Z")

	var entry struct {
		AgentID, Status, Title string
	}
	d.call(t, http.MethodGet, "/v1/sessions/"+old.SessionID, nil, http.StatusOK, &entry)
	testkit.Equal(t, entry.AgentID, "scripted")
	testkit.Equal(t, entry.Status, "cold")
	testkit.Equal(t, entry.Title, "first 2")

	// The recorded session is the agent's: a prompt loads it.
	a.WaitAnswer(a.Call("session/attach", map[string]any{"sessionId": old.SessionID, "historyPolicy": "none"}))
	fs, stop := promptTurn(t, a, old.SessionID, "recall")
	testkit.Equal(t, stop, "end_turn")
	contains(t, acpclient.Chunks(t, fs), "seen: first 2\n") // the prompts before this one

	d.call(t, http.MethodPost, "/v1/agents/scripted/sync", nil, http.StatusOK, &res)
	testkit.Equal(t, len(res.Synced), 0)
	testkit.Equal(t, res.Skipped, 4)
	d.call(t, http.MethodPost, "/v1/agents/nope/sync", nil, http.StatusNotFound, nil)
	d.call(t, http.MethodPost, "/v1/agents/troupe/sync", nil, http.StatusNotFound, nil)
}
