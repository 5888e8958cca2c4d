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

// attentionQuery reads the attention events of n named sessions (all
// when n is 0), naming the index for the reason kindQuery does.
func attentionQuery(n int) string {
	q := "SELECT session_id, seq, recorded_at, kind, payload FROM events INDEXED BY events_attention WHERE " + attentionWhere
	if n > 0 {
		q += " AND session_id IN (?" + strings.Repeat(",?", n-1) + ")"
	}
	return q + " ORDER BY session_id, seq"
}

// LoadAttention calls fn for the AttentionKinds events of the sessions in
// ids (every session when ids is empty), in session then seq order, read
// through their partial index: a session list pays for these events only,
// not for the sessions' deltas.
func (s *Store) LoadAttention(ctx context.Context, ids []string, fn func(event.Event) error) error {
	rows, err := s.reader.QueryContext(ctx, attentionQuery(len(ids)), lo.ToAnySlice(ids)...)
	if err != nil {
		return fmt.Errorf("load attention events: %w", err)
	}
	if err := eachEvent(rows, fn); err != nil {
		return fmt.Errorf("load attention events: %w", err)
	}
	return nil
}
