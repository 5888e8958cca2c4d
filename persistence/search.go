package persistence

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/troupehq/troupe/persistence/event"
)

// SearchCandidates calls fn, in session then seq order, for each event of
// kind among kinds whose payload contains q, ignoring ASCII case (every
// one when q is empty); ids, when not empty, limits the search to those
// sessions, as many as the caller likes. The payload match is a prefilter on the JSON text: the caller
// checks the decoded fields.
//
// A prompt's text is the one it was sent with: with prompt.queued among
// kinds, a prompt edited while it waited is passed as its last
// prompt.updated (whose payload holds the new content) instead, so a
// search finds the edit and not the words it replaced; such an edit is
// passed whether or not it holds q.
func (s *Store) SearchCandidates(ctx context.Context, q string, kinds []event.Kind, ids []string, fn func(event.Event) error) error {
	if len(kinds) == 0 {
		return nil
	}
	edits := slices.Contains(kinds, event.PromptQueued) && !slices.Contains(kinds, event.PromptUpdated)
	if edits {
		kinds = append(slices.Clone(kinds), event.PromptUpdated)
	}
	var sb strings.Builder
	sb.WriteString("SELECT session_id, seq, recorded_at, kind, payload FROM events WHERE kind IN (")
	args := make([]any, 0, len(kinds)+2)
	for i, k := range kinds {
		if i > 0 {
			sb.WriteString(",")
		}
		sb.WriteString("?")
		args = append(args, string(k))
	}
	sb.WriteString(")")
	if q != "" {
		// Every edit is read, matching or not: it may hide a match of the
		// text it replaced.
		if edits {
			sb.WriteString(" AND (kind = 'prompt.updated' OR " + s.d.containsFold(s.d.payloadText()) + ")")
		} else {
			sb.WriteString(" AND " + s.d.containsFold(s.d.payloadText()))
		}
		args = append(args, q)
	}
	if len(ids) > 0 {
		// One parameter however many ids: a placeholder each would pass
		// SQLite's limit on variables (32,766) with a long allowlist.
		list, err := json.Marshal(ids)
		if err != nil {
			return fmt.Errorf("search events: %w", err)
		}
		sb.WriteString(" AND " + s.d.inJSONList("session_id"))
		args = append(args, string(list))
	}
	sb.WriteString(" ORDER BY session_id, seq")
	rows, err := s.reader.QueryContext(ctx, s.d.bind(sb.String()), args...)
	if err != nil {
		return fmt.Errorf("search events: %w", err)
	}
	each := fn
	var lp *lastPrompts
	if edits {
		lp = &lastPrompts{fn: fn}
		each = lp.add
	}
	if err := eachEvent(rows, each); err != nil {
		return fmt.Errorf("search events: %w", err)
	}
	if lp != nil {
		if err := lp.flush(); err != nil {
			return fmt.Errorf("search events: %w", err)
		}
	}
	return nil
}

// eachEvent calls fn for each row of (session_id, seq, recorded_at, kind,
// payload), closing rows; fn's error is returned as it is.
func eachEvent(rows *sql.Rows, fn func(event.Event) error) error {
	defer rows.Close()
	for rows.Next() {
		var e event.Event
		var kind string
		var at int64
		if err := rows.Scan(&e.SessionID, &e.Seq, &at, &kind, &e.Payload); err != nil {
			return err
		}
		e.Kind, e.RecordedAt = event.Kind(kind), time.Unix(0, at).UTC()
		if err := fn(e); err != nil {
			return err
		}
	}
	return rows.Err()
}
