package rest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/transports/httpjson"
)

// queryable are the session/update kinds /events serves, as the protocol
// lists them; chunks and state snapshots are refused.
var queryable = []string{"usage_update", "tool_call", "tool_call_update", "prompt_received", "turn_complete", "permission_resolved"}

// eventRow is one NDJSON line of /events.
type eventRow struct {
	SessionID string    `json:"sessionId,omitempty"`
	TS        time.Time `json:"ts"`
	Kind      string    `json:"kind"`
	Update    any       `json:"update"`
	MessageID string    `json:"messageId,omitempty"`
}

type eventFilter struct {
	kinds map[string]bool
	since time.Time
}

func parseEventFilter(r *http.Request) (eventFilter, error) {
	q := r.URL.Query()
	f := eventFilter{kinds: map[string]bool{}}
	raw := strings.TrimSpace(q.Get("kinds"))
	if raw == "" {
		return f, fmt.Errorf("kinds is required; allowed kinds: %s", strings.Join(queryable, ", "))
	}
	for _, k := range strings.Split(raw, ",") {
		k = strings.TrimSpace(k)
		if !slices.Contains(queryable, k) {
			return f, fmt.Errorf("kind %q is not queryable; allowed kinds: %s", k, strings.Join(queryable, ", "))
		}
		f.kinds[k] = true
	}
	if s := q.Get("since"); s != "" {
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return f, fmt.Errorf("since %q is not an ISO-8601 timestamp", s)
		}
		f.since = t
	}
	return f, nil
}

// rows reads session id's log and returns its rows passing f, oldest first.
func (a *API) rows(ctx context.Context, id string, f eventFilter, withID bool) ([]eventRow, error) {
	d, err := readDecisions(ctx, a.cfg.Sessions, a.cfg.Gate, id, nil)
	if err != nil {
		return nil, err
	}
	proj := newProjector(id, a.cfg.Models, d)
	var out []eventRow
	err = a.cfg.Sessions.Load(ctx, id, 1, func(e event.Event) error {
		for _, u := range proj.project(e) {
			if !f.kinds[u.kind] || e.RecordedAt.Before(f.since) {
				continue
			}
			row := eventRow{TS: e.RecordedAt, Kind: u.kind, Update: u.body, MessageID: u.messageID}
			if withID {
				row.SessionID = id
			}
			out = append(out, row)
		}
		return nil
	})
	return out, err
}

func (a *API) events(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	f, err := parseEventFilter(r)
	if err != nil {
		httpjson.Error(w, http.StatusBadRequest, err.Error())
		return
	}
	if _, err := a.cfg.Sessions.Meta(r.Context(), id); err != nil {
		a.sessionError(w, id, err)
		return
	}
	rows, err := a.rows(r.Context(), id, f, false)
	if err != nil {
		a.sessionError(w, id, err)
		return
	}
	writeRows(w, rows)
}

// mergedEvents interleaves every session's rows by time. Sessions last
// updated before since are skipped without reading their logs.
func (a *API) mergedEvents(w http.ResponseWriter, r *http.Request) {
	f, err := parseEventFilter(r)
	if err != nil {
		httpjson.Error(w, http.StatusBadRequest, err.Error())
		return
	}
	metas, err := a.cfg.Sessions.List(r.Context(), "")
	if err != nil {
		a.sessionError(w, "", err)
		return
	}
	var all []eventRow
	for _, m := range metas {
		if m.UpdatedAt.Before(f.since) {
			continue
		}
		rows, err := a.rows(r.Context(), m.ID, f, true)
		if err != nil {
			a.sessionError(w, m.ID, err)
			return
		}
		all = append(all, rows...)
	}
	// Each session's rows are in order already; a stable sort keeps them so.
	slices.SortStableFunc(all, func(x, y eventRow) int { return x.TS.Compare(y.TS) })
	writeRows(w, all)
}

func writeRows(w http.ResponseWriter, rows []eventRow) {
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	bw := bufio.NewWriter(w)
	for _, row := range rows {
		b, err := json.Marshal(row)
		if err != nil {
			continue
		}
		_, _ = bw.Write(append(b, '\n'))
	}
	_ = bw.Flush()
}
