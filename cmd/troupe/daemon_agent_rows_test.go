package main

import (
	"net/http"
	"testing"

	"github.com/troupehq/troupe/testkit"
)

// A session backed by an external agent names that agent wherever a
// session is listed or described: REST's list and entry, ACP's
// session/list, the export bundle; a troupe session still says troupe.
func TestDaemonExternalAgentSessionRowsNameTheAgent(t *testing.T) {
	home, _ := scriptedAgentHome(t, nil)
	d := startDaemon(t, home, nil)
	a := d.dialACP(t, "editor")
	sid := newAgentSession(t, a, t.TempDir(), "scripted")
	_, stop := promptTurn(t, a, sid, "say hi")
	testkit.Equal(t, stop, "end_turn")
	own := d.create(t, t.TempDir())

	var list struct {
		Sessions []struct {
			SessionID string `json:"sessionId"`
			AgentID   string `json:"agentId"`
		} `json:"sessions"`
	}
	d.call(t, http.MethodGet, "/v1/sessions?includeNonInteractive=1", nil, http.StatusOK, &list)
	agents := map[string]string{}
	for _, s := range list.Sessions {
		agents[s.SessionID] = s.AgentID
	}
	testkit.Equal(t, agents[sid], "scripted")
	testkit.Equal(t, agents[own], "troupe")

	var entry struct {
		AgentID string `json:"agentId"`
	}
	d.call(t, http.MethodGet, "/v1/sessions/"+sid, nil, http.StatusOK, &entry)
	testkit.Equal(t, entry.AgentID, "scripted")

	var acpList struct {
		Sessions []struct {
			SessionID string `json:"sessionId"`
			Meta      struct {
				Hydra struct {
					AgentID string `json:"agentId"`
				} `json:"hydra-acp"`
			} `json:"_meta"`
		} `json:"sessions"`
	}
	a.WaitAnswer(a.Call("session/list", map[string]any{})).Decode(t, &acpList)
	acpAgents := map[string]string{}
	for _, s := range acpList.Sessions {
		acpAgents[s.SessionID] = s.Meta.Hydra.AgentID
	}
	testkit.Equal(t, acpAgents[sid], "scripted")
	testkit.Equal(t, acpAgents[own], "troupe")

	var bundle struct {
		Session struct {
			AgentID string `json:"agentId"`
		} `json:"session"`
	}
	d.call(t, http.MethodGet, "/v1/sessions/"+sid+"/export", nil, http.StatusOK, &bundle)
	testkit.Equal(t, bundle.Session.AgentID, "scripted")
}
