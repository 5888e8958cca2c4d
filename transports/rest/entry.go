package rest

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/transports/httpjson"
)

// entry is the protocol's SessionListEntry.
type entry struct {
	SessionID           string    `json:"sessionId"`
	AgentID             string    `json:"agentId"`
	Cwd                 string    `json:"cwd"`
	Title               string    `json:"title"`
	Status              string    `json:"status"` // warm | cold (the clients' words; the reference says live)
	StatusReason        string    `json:"statusReason,omitempty"`
	Busy                bool      `json:"busy"`
	AwaitingInput       bool      `json:"awaitingInput"`
	AttachedClients     int       `json:"attachedClients"`
	CurrentModel        string    `json:"currentModel,omitempty"`
	CurrentUsage        usage     `json:"currentUsage"`
	ForkedFromSessionID string    `json:"forkedFromSessionId,omitempty"`
	ParentSessionID     string    `json:"parentSessionId,omitempty"` // the spawning session of a transformer's child
	Interactive         *bool     `json:"interactive,omitempty"`     // absent: undecided
	CreatedAt           time.Time `json:"createdAt"`
	UpdatedAt           time.Time `json:"updatedAt"`
}

// usage is a session's token and cost totals.
type usage struct {
	InputTokens      int64   `json:"inputTokens"`
	OutputTokens     int64   `json:"outputTokens"`
	CacheReadTokens  int64   `json:"cacheReadTokens"`
	CacheWriteTokens int64   `json:"cacheWriteTokens"`
	Cost             float64 `json:"cost"`
	// CostAmount and CostCurrency are the reference's names for the
	// session's spend, which Hydra's CLI shows in its COST column; absent
	// while nothing was spent (a model without pricing), as Hydra leaves
	// them out when its agent reports no cost.
	CostAmount   *float64 `json:"costAmount,omitempty"`
	CostCurrency string   `json:"costCurrency,omitempty"`
	// Used and Size are the reference's context occupancy: the tokens
	// the last step put in the model's context (the snapshot row's, so a
	// list reads no log) and the model's window; absent while no step
	// ended since the session began or compacted, Size while the window
	// is unknown.
	Used *int64 `json:"used,omitempty"`
	Size *int64 `json:"size,omitempty"`
}

// usageOf is a session's usage as an entry's currentUsage.
func usageOf(u event.Usage) usage {
	out := usage{InputTokens: u.Input, OutputTokens: u.Output, CacheReadTokens: u.CacheRead, CacheWriteTokens: u.CacheWrite, Cost: u.Cost}
	if u.Cost > 0 {
		out.CostAmount, out.CostCurrency = &u.Cost, "USD"
	}
	return out
}

// An entry's statuses: Hydra's clients sort and filter on warm (a
// process hosts the session) and cold; the reference's "live" is the
// store's word, never an entry's.
const (
	StatusWarm = "warm"
	StatusCold = "cold"
)

// entryOf builds m's entry. running says whether a live process hosts it
// (Sessions.Running), hosted whether this daemon does, in which case its
// actor says whether a run is under way or queued; awaiting whether any
// attention flag is raised (an open permission request among them), from
// the log, whoever is attached.
func (a *API) entryOf(ctx context.Context, m sessions.Meta, running, hosted, awaiting bool, window func(provider, model string) int) entry {
	e := entry{
		SessionID: m.ID, AgentID: cmp.Or(m.Agent, AgentID), Cwd: m.Cwd, Title: m.Title, Status: m.Status,
		ForkedFromSessionID: m.ParentID, ParentSessionID: m.ChildOf, Interactive: m.Interactive, CreatedAt: m.CreatedAt, UpdatedAt: m.UpdatedAt,
		CurrentUsage:  usageOf(m.Usage),
		AwaitingInput: awaiting,
	}
	if a.cfg.Clients != nil {
		e.AttachedClients = a.cfg.Clients.Attached(m.ID)
	}
	if m.Model != "" {
		e.CurrentModel = m.Provider + "/" + m.Model
	}
	if m.ContextUsed > 0 {
		e.CurrentUsage.Used = &m.ContextUsed
		if size := window(m.Provider, m.Model); size > 0 {
			e.CurrentUsage.Size = new(int64(size))
		}
	}
	switch {
	case m.Status == "failed":
		// The protocol knows warm and cold; a failed session is cold and
		// starts again on its next request.
		e.Status, e.StatusReason = StatusCold, m.StatusReason
	case !running:
		// The store still says live for a session whose process was
		// killed.
		e.Status = StatusCold
	default:
		e.Status = StatusWarm
	}
	if hosted {
		if st, err := a.cfg.Sessions.State(ctx, m.ID); err == nil {
			e.Busy = st.ActiveRun != "" || st.Queued > 0
		}
	}
	return e
}

// maxListLimit bounds a page of GET /v1/sessions.
const maxListLimit = 10_000

// list answers GET /v1/sessions: every session the query keeps, as
// Hydra's clients ask, or, with limit (troupe's), a page of them and the
// cursor of the next (nextCursor; cursor=it asks for that page). Cold
// sessions are read from their rows and start no actor.
func (a *API) list(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), requestTimeout)
	defer cancel()
	params := r.URL.Query()
	// Piped sessions (interactive: false, troupe cat) are listed only
	// when asked for.
	all := params.Get("includeNonInteractive")
	withPiped := all == "1" || all == "true"
	// ?status=warm|cold keeps that status; another value is ignored (the
	// whole list), as Hydra does, so a client asking for a status this
	// daemon does not know filters for itself.
	only := params.Get("status")
	if only != StatusWarm && only != StatusCold {
		only = ""
	}
	q := sessions.ListQuery{Cwd: params.Get("cwd"), InteractiveOnly: !withPiped}
	if v := params.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 || n > maxListLimit {
			httpjson.Error(w, http.StatusBadRequest, fmt.Sprintf("limit must be a whole number from 1 to %d", maxListLimit))
			return
		}
		q.Limit = n
	}
	if v := params.Get("cursor"); v != "" {
		c, err := sessions.DecodeCursor(v)
		if err != nil {
			httpjson.Error(w, http.StatusBadRequest, "cursor: "+err.Error())
			return
		}
		q.After = &c
	}
	live, err := a.cfg.Sessions.Live(ctx)
	if err != nil {
		a.sessionError(w, "", err)
		return
	}
	running, err := a.cfg.Sessions.Running(ctx)
	if err != nil {
		a.sessionError(w, "", err)
		return
	}
	var metas []sessions.Meta
	var next string
	if only == StatusWarm {
		// The warm ones are read by id: no list of every session.
		metas, next, err = a.cfg.Sessions.ListRunning(ctx, q)
	} else {
		metas, next, err = a.page(ctx, q, func(m sessions.Meta) bool {
			return only != StatusCold || m.Status == "failed" || !running[m.ID]
		})
	}
	if err != nil {
		a.sessionError(w, "", err)
		return
	}
	hosted := make(map[string]bool, len(live))
	for _, id := range live {
		hosted[id] = true
	}
	awaiting := map[string]bool{}
	if len(metas) > 0 {
		if awaiting, err = a.cfg.Sessions.AwaitingInput(ctx, metaIDs(metas)); err != nil {
			a.sessionError(w, "", err)
			return
		}
	}
	out := make([]entry, 0, len(metas))
	window := a.windows()
	for _, m := range metas {
		e := a.entryOf(ctx, m, running[m.ID], hosted[m.ID], awaiting[m.ID], window)
		if only != "" && e.Status != only {
			continue
		}
		out = append(out, e)
	}
	body := map[string]any{"sessions": out}
	if next != "" {
		body["nextCursor"] = next
	}
	httpjson.WriteJSON(w, http.StatusOK, body)
}

// windows is contextWindow remembering its answers, for one list: a
// resolution of the model configuration per entry was a third of a
// list's CPU.
func (a *API) windows() func(provider, model string) int {
	known := map[[2]string]int{}
	return func(provider, model string) int {
		k := [2]string{provider, model}
		if w, ok := known[k]; ok {
			return w
		}
		w := a.contextWindow(provider, model)
		known[k] = w
		return w
	}
}

// page is the page q picks of the sessions keep keeps, and the next
// page's cursor: pages of the store's list are read until q.Limit are
// kept or the list ends.
func (a *API) page(ctx context.Context, q sessions.ListQuery, keep func(sessions.Meta) bool) ([]sessions.Meta, string, error) {
	var out []sessions.Meta
	for {
		list, next, err := a.cfg.Sessions.ListPage(ctx, q)
		if err != nil {
			return nil, "", err
		}
		if out == nil {
			out = make([]sessions.Meta, 0, len(list))
		}
		for _, m := range list {
			if !keep(m) {
				continue
			}
			if q.Limit > 0 && len(out) == q.Limit {
				return out, sessions.EncodeCursor(sessions.CursorOf(out[len(out)-1])), nil
			}
			out = append(out, m)
		}
		if next == "" {
			return out, "", nil
		}
		if len(out) == q.Limit {
			return out, sessions.EncodeCursor(sessions.CursorOf(out[len(out)-1])), nil
		}
		after := sessions.CursorOf(list[len(list)-1])
		q.After = &after
	}
}

func (a *API) get(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), requestTimeout)
	defer cancel()
	id := r.PathValue("id")
	m, err := a.cfg.Sessions.Meta(ctx, id)
	if err != nil {
		a.sessionError(w, id, err)
		return
	}
	live, err := a.cfg.Sessions.Live(ctx)
	if err != nil {
		a.sessionError(w, id, err)
		return
	}
	awaiting, err := a.cfg.Sessions.AwaitingInput(ctx, []string{id})
	if err != nil {
		a.sessionError(w, id, err)
		return
	}
	running, err := a.cfg.Sessions.Running(ctx)
	if err != nil {
		a.sessionError(w, id, err)
		return
	}
	httpjson.WriteJSON(w, http.StatusOK, a.entryOf(ctx, m, running[id], slices.Contains(live, id), awaiting[id], a.contextWindow))
}
