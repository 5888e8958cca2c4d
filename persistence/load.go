package persistence

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/troupehq/troupe/persistence/event"
)

// Load calls fn for every event of session with seq >= from, in seq order,
// reading rows as it goes so that a long log never sits in memory. fn may
// stop the scan by returning an error, which Load returns.
func (s *Store) Load(ctx context.Context, session string, from int64, fn func(event.Event) error) error {
	return s.LoadRange(ctx, session, from, 0, fn)
}

// LoadRange is Load bounded above by to (inclusive); to <= 0 means no bound.
func (s *Store) LoadRange(ctx context.Context, session string, from, to int64, fn func(event.Event) error) error {
	q := "SELECT seq, recorded_at, kind, payload FROM events WHERE session_id = ? AND seq >= ?"
	args := []any{session, from}
	if to > 0 {
		q += " AND seq <= ?"
		args = append(args, to)
	}
	rows, err := s.reader.QueryContext(ctx, s.d.bind(q+" ORDER BY seq"), args...)
	if err != nil {
		return fmt.Errorf("load session %s from %d: %w", session, from, err)
	}
	defer rows.Close()
	var (
		kind    sql.RawBytes
		payload sql.RawBytes
		at      int64
	)
	for rows.Next() {
		ev := event.Event{SessionID: session}
		if err := rows.Scan(&ev.Seq, &at, &kind, &payload); err != nil {
			return fmt.Errorf("load session %s: %w", session, err)
		}
		s.eventsRead.Add(1)
		ev.RecordedAt = time.Unix(0, at).UTC()
		ev.Kind = internKind(kind)
		// RawBytes is only valid until the next Scan: copy exactly once.
		ev.Payload = append([]byte(nil), payload...)
		if err := fn(ev); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("load session %s: %w", session, err)
	}
	return nil
}

// internKind avoids one string allocation per row for the handful of kinds.
func internKind(b []byte) event.Kind {
	if k, ok := kindByName[string(b)]; ok {
		return k
	}
	return event.Kind(b)
}

var kindByName = func() map[string]event.Kind {
	m := map[string]event.Kind{}
	for _, k := range event.Kinds() {
		m[string(k)] = k
	}
	return m
}()

// LastSeq is the highest committed seq of a session, 0 for none.
func (s *Store) LastSeq(ctx context.Context, session string) (int64, error) {
	var seq sql.NullInt64
	err := s.reader.QueryRowContext(ctx, s.d.bind("SELECT max(seq) FROM events WHERE session_id = ?"), session).Scan(&seq)
	if err != nil {
		return 0, fmt.Errorf("last seq of %s: %w", session, err)
	}
	return seq.Int64, nil
}

// kindIndexes are the partial indexes of one kind's events.
var kindIndexes = map[event.Kind]string{event.UpdateTransformed: "events_update_transformed"}

// kindQuery reads one session's events of kind. The kind is a literal,
// not a parameter: SQLite uses a partial index only when the query's WHERE
// repeats the index's (known kinds hold no quote); and the index is named,
// since without statistics SQLite takes the primary key as cheaper.
// kindQuery is SQLite's (what its planner test reads), kindQueryIn d's.
func kindQuery(kind event.Kind) string { return kindQueryIn(sqliteDialect, kind) }

func kindQueryIn(d dialect, kind event.Kind) string {
	from := "events"
	if ix := kindIndexes[kind]; ix != "" {
		from += d.indexedBy(ix)
	}
	return d.bind("SELECT seq, recorded_at, payload FROM " + from + " WHERE session_id = ? AND kind = '" + string(kind) + "' ORDER BY seq")
}

// LoadKind calls fn for every event of session of one kind, in seq order.
// Only kinds with a partial index of their own (update.transformed) are
// read without scanning the session's log.
func (s *Store) LoadKind(ctx context.Context, session string, kind event.Kind, fn func(event.Event) error) error {
	if !kind.Known() {
		return fmt.Errorf("load %s events of %s: unknown kind", kind, session)
	}
	rows, err := s.reader.QueryContext(ctx, kindQueryIn(s.d, kind), session)
	if err != nil {
		return fmt.Errorf("load %s events of %s: %w", kind, session, err)
	}
	defer rows.Close()
	for rows.Next() {
		ev := event.Event{SessionID: session, Kind: kind}
		var at int64
		if err := rows.Scan(&ev.Seq, &at, &ev.Payload); err != nil {
			return fmt.Errorf("load %s events of %s: %w", kind, session, err)
		}
		ev.RecordedAt = time.Unix(0, at).UTC()
		if err := fn(ev); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("load %s events of %s: %w", kind, session, err)
	}
	return nil
}
