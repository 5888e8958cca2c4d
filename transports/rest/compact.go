package rest

import (
	"context"
	"net/http"
	"time"

	"github.com/samber/lo"
	"github.com/troupehq/troupe/runtime/compaction"
	"github.com/troupehq/troupe/transports/httpjson"
)

// compactStatus is GET /v1/sessions/:id/compact/status as Hydra's TUI
// reads it on attach: whether a compaction runs (compactionState), and
// whether the session's context is past the point where it should be
// compacted, with the numbers that say so. It schedules nothing.
type compactStatus struct {
	InFlight        bool             `json:"inFlight"`
	ShouldCompact   bool             `json:"shouldCompact"`
	ApproxTokens    *int64           `json:"approxTokens,omitempty"`
	CurrentUsage    *contextUsage    `json:"currentUsage,omitempty"`
	CompactionState *compactionState `json:"compactionState,omitempty"`
	Compactions     int              `json:"compactions"`
}

type contextUsage struct {
	Used int64 `json:"used"`
	Size int64 `json:"size"`
}

type compactionState struct {
	Status      string `json:"status"` // running
	RequestedAt int64  `json:"requestedAt"`
}

func (a *API) compactStatus(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), requestTimeout)
	defer cancel()
	id := r.PathValue("id")
	m, err := a.cfg.Sessions.Meta(ctx, id)
	if err != nil {
		a.sessionError(w, id, err)
		return
	}
	info, err := a.cfg.Sessions.Compaction(ctx, id)
	if err != nil {
		a.sessionError(w, id, err)
		return
	}
	running, err := a.cfg.Sessions.Running(ctx)
	if err != nil {
		a.sessionError(w, id, err)
		return
	}
	out := compactStatus{Compactions: info.Compactions}
	// Only a live process compacts: an open compaction in a cold log is a
	// crashed one's.
	if info.InFlight && running[id] {
		out.InFlight = true
		out.CompactionState = &compactionState{Status: "running", RequestedAt: info.StartedAt.UnixMilli()}
	}
	if info.ContextUsed > 0 {
		out.ApproxTokens = lo.ToPtr(info.ContextUsed)
		window := a.contextWindow(m.Provider, m.Model)
		if window > 0 {
			out.CurrentUsage = &contextUsage{Used: info.ContextUsed, Size: int64(window)}
			out.ShouldCompact = !out.InFlight && compaction.ShouldCompact(int(info.ContextUsed), window, compaction.DefaultSettings())
		}
	}
	httpjson.WriteJSON(w, http.StatusOK, out)
}

// contextWindow is provider/model's context window (the default model's
// for a session that names none), 0 when unknown.
func (a *API) contextWindow(provider, model string) int {
	if a.cfg.Models == nil {
		return 0
	}
	if model == "" {
		provider, model = a.cfg.Models.Default()
	}
	md, err := a.cfg.Models.Model(provider, model)
	if err != nil {
		return 0
	}
	return md.ContextWindow
}

// compactTimeout bounds one compaction asked for over REST.
const compactTimeout = 10 * time.Minute

// compact starts a compaction in the background (202 {scheduled: true}),
// as Hydra's TUI asks for one when the status said it should; its phases
// reach attached clients as hydra_compaction updates. The API's Close
// waits for it; a failure is logged (the client was answered).
func (a *API) compact(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), requestTimeout)
	defer cancel()
	id := r.PathValue("id")
	if _, ok := a.hostable(ctx, w, id); !ok {
		return
	}
	a.bg.Add(1)
	go func() {
		defer a.bg.Done()
		ctx, cancel := context.WithTimeout(a.ctx, compactTimeout)
		defer cancel()
		if _, err := a.cfg.Sessions.Compact(ctx, id, ""); err != nil && a.ctx.Err() == nil {
			a.cfg.Log.Warn("compaction asked over REST failed", "session", id, "error", err)
		}
	}()
	httpjson.WriteJSON(w, http.StatusAccepted, map[string]bool{"scheduled": true})
}
