package rest

import (
	"context"
	"net/http"
	"path/filepath"

	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/transports/httpjson"
)

// syncedSession is one entry of a sync's answer, in Hydra's shape.
type syncedSession struct {
	SessionID         string `json:"sessionId"`
	UpstreamSessionID string `json:"upstreamSessionId"`
	AgentID           string `json:"agentId"`
	Cwd               string `json:"cwd"`
	Title             string `json:"title,omitempty"`
	UpdatedAt         string `json:"updatedAt,omitempty"`
}

// syncAgent is POST /v1/agents/:id/sync: the catalogue's agent is started,
// asked which sessions it remembers (session/list) and stopped; each one
// no session here records (by upstream session id) becomes a cold session
// on that agent, which its first prompt resumes with session/load. It
// answers {synced, skipped}: 404 for an agent the catalogue does not
// name, 409 when the agent cannot list or fails to.
func (a *API) syncAgent(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if id == AgentID || a.cfg.AgentKnown == nil || !a.cfg.AgentKnown(id) {
		httpjson.Error(w, http.StatusNotFound, "agent "+id+" is not installed")
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), requestTimeout)
	defer cancel()
	remembered, err := a.cfg.AgentSessions(ctx, id)
	if err != nil {
		httpjson.Error(w, http.StatusConflict, err.Error())
		return
	}
	metas, err := a.cfg.Sessions.List(ctx, "")
	if err != nil {
		a.sessionError(w, "", err)
		return
	}
	known := make(map[string]bool, len(metas))
	for _, m := range metas {
		if m.UpstreamSessionID != "" {
			known[m.UpstreamSessionID] = true
		}
	}
	synced, skipped := []syncedSession{}, 0
	for _, rs := range remembered {
		// An upstream session recorded here, one listed twice, or one
		// whose directory is not an absolute path (the agent's to say;
		// a session's cwd must be one) is not recorded again.
		if rs.ID == "" || known[rs.ID] || !filepath.IsAbs(rs.Cwd) {
			skipped++
			continue
		}
		known[rs.ID] = true
		s, err := a.recordRemembered(ctx, id, rs)
		if err != nil {
			a.sessionError(w, s.SessionID, err)
			return
		}
		synced = append(synced, s)
	}
	httpjson.WriteJSON(w, http.StatusOK, map[string]any{"synced": synced, "skipped": skipped})
}

// recordRemembered records rs as a cold session on agent: created with the
// daemon's settings, the agent and its upstream session id, then stopped.
func (a *API) recordRemembered(ctx context.Context, agent string, rs sessions.AgentSession) (syncedSession, error) {
	set := a.newSettings()
	set.Agent, set.UpstreamSessionID = &agent, &rs.ID
	created := event.CreatedPayload{Cwd: filepath.Clean(rs.Cwd), Title: rs.Title, OriginTransport: "rest", Settings: set}
	sid := sessions.NewID()
	out := syncedSession{SessionID: sid, UpstreamSessionID: rs.ID, AgentID: agent, Cwd: created.Cwd, Title: rs.Title, UpdatedAt: rs.UpdatedAt}
	if err := a.open(ctx, sid, &created); err != nil {
		return out, err
	}
	return out, a.cfg.Sessions.Kill(ctx, sid)
}
