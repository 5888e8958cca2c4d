package persistence

import (
	"context"
	"fmt"
	"strings"

	"github.com/samber/lo"
	"github.com/troupehq/troupe/persistence/event"
)

// AttentionKinds are the kinds migration 0009's partial index covers: what
// a session's attention flags and open permission requests fold from.
var AttentionKinds = []event.Kind{event.AttentionChanged, event.ToolPermissionRequested, event.ToolPermissionResolved,
	event.RunEnded, event.RunInterrupted}

// attentionWhere is the index's WHERE, verbatim.
const attentionWhere = "kind IN ('attention.changed', 'tool.permission_requested', 'tool.permission_resolved', 'run.ended', 'run.interrupted')"

// raisedWhere is migration 0013's index events_raised's WHERE, verbatim:
// the events that raise what an attention fold can find still raised.
const raisedWhere = "kind IN ('attention.changed', 'tool.permission_requested')"

// attentionQuery reads the attention events of n named sessions, naming
// the index for the reason kindQuery does. When n is 0 it reads those of
// every session that ever raised a flag or asked a permission: the
// others' (their runs' ends) fold to nothing raised, and a store of
// 100,000 sessions that never asked has 100,000 of them.
// attentionQuery is SQLite's (what its planner test reads),
// attentionQueryIn d's.
func attentionQuery(n int) string { return attentionQueryIn(sqliteDialect, n) }

func attentionQueryIn(d dialect, n int) string {
	q := "SELECT session_id, seq, recorded_at, kind, payload FROM events" + d.indexedBy("events_attention") + " WHERE " + attentionWhere
	if n > 0 {
		q += " AND session_id IN (?" + strings.Repeat(",?", n-1) + ")"
	} else {
		q += " AND session_id IN (SELECT DISTINCT session_id FROM events" + d.indexedBy("events_raised") + " WHERE " + raisedWhere + ")"
	}
	return d.bind(q + " ORDER BY session_id, seq")
}

// LoadAttention calls fn for the AttentionKinds events of the sessions in
// ids (when ids is empty, of every session that ever raised a flag or
// asked a permission), in session then seq order, read
// through their partial index: a session list pays for these events only,
// not for the sessions' deltas.
func (s *Store) LoadAttention(ctx context.Context, ids []string, fn func(event.Event) error) error {
	rows, err := s.reader.QueryContext(ctx, attentionQueryIn(s.d, len(ids)), lo.ToAnySlice(ids)...)
	if err != nil {
		return fmt.Errorf("load attention events: %w", err)
	}
	if err := eachEvent(rows, fn); err != nil {
		return fmt.Errorf("load attention events: %w", err)
	}
	return nil
}
