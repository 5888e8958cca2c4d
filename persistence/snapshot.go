package persistence

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// Snapshot is a fold of a session's log through Seq, kept so that a fold
// starts from it and reads only the events after Seq. The store checks
// it against the log on the way out: see LoadSnapshot.
type Snapshot struct {
	// Kind names the fold (a session's recovery fold, say): each kind
	// has its own snapshot.
	Kind string
	// Version is the version of the code that folded it; a snapshot of
	// another version is never returned.
	Version int
	// Seq is the last seq the fold took in.
	Seq  int64
	Data []byte
}

// SaveSnapshot records snap as session's snapshot of its kind, replacing
// the one before, with the check of the event at snap.Seq, which must be
// in the log. It writes on the writer connection, under the write lock:
// callers (the session's snapshot goroutine) keep it off any actor.
func (s *Store) SaveSnapshot(ctx context.Context, session string, snap Snapshot) error {
	if err := s.writable(); err != nil {
		return err
	}
	check, err := s.eventCheck(ctx, session, snap.Seq)
	if err != nil {
		return fmt.Errorf("save %s snapshot of %s at %d: %w", snap.Kind, session, snap.Seq, err)
	}
	if check == nil {
		return fmt.Errorf("save %s snapshot of %s at %d: no such event", snap.Kind, session, snap.Seq)
	}
	s.commitMu.Lock()
	defer s.commitMu.Unlock()
	_, err = s.writer.ExecContext(ctx, s.d.bind(`INSERT INTO snapshots
		(session_id, kind, version, seq, check_hash, data, written_at) VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (session_id, kind) DO UPDATE SET version = excluded.version, seq = excluded.seq,
			check_hash = excluded.check_hash, data = excluded.data, written_at = excluded.written_at`),
		session, snap.Kind, snap.Version, snap.Seq, check, snap.Data, time.Now().UnixNano())
	if err != nil {
		return classifyWrite(fmt.Errorf("save %s snapshot of %s at %d: %w", snap.Kind, session, snap.Seq, err))
	}
	return nil
}

// LoadSnapshot is session's snapshot of kind, when there is one the log
// still vouches for: of this version, and whose seq holds the very event
// it was taken after (same kind, time and payload). Anything else (a
// snapshot past the log's end, of a log cut and written again, of other
// code) is not returned: the caller folds from the start and saves a new
// one, which replaces it.
func (s *Store) LoadSnapshot(ctx context.Context, session, kind string, version int) (Snapshot, bool, error) {
	snap := Snapshot{Kind: kind}
	var check []byte
	err := s.reader.QueryRowContext(ctx, s.d.bind("SELECT version, seq, check_hash, data FROM snapshots WHERE session_id = ? AND kind = ?"),
		session, kind).Scan(&snap.Version, &snap.Seq, &check, &snap.Data)
	if errors.Is(err, sql.ErrNoRows) {
		return Snapshot{}, false, nil
	}
	if err != nil {
		return Snapshot{}, false, fmt.Errorf("load %s snapshot of %s: %w", kind, session, err)
	}
	if snap.Version != version {
		s.snapshotsDiscarded.Add(1)
		return Snapshot{}, false, nil
	}
	want, err := s.eventCheck(ctx, session, snap.Seq)
	if err != nil {
		return Snapshot{}, false, fmt.Errorf("load %s snapshot of %s: %w", kind, session, err)
	}
	if want == nil || string(want) != string(check) {
		s.snapshotsDiscarded.Add(1)
		return Snapshot{}, false, nil
	}
	return snap, true, nil
}

// eventCheck is the hash of the event at seq (its kind, recording time and
// payload), nil when the log has none there.
func (s *Store) eventCheck(ctx context.Context, session string, seq int64) ([]byte, error) {
	var (
		at      int64
		kind    string
		payload []byte
	)
	err := s.reader.QueryRowContext(ctx, s.d.bind("SELECT recorded_at, kind, payload FROM events WHERE session_id = ? AND seq = ?"),
		session, seq).Scan(&at, &kind, &payload)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read event %d: %w", seq, err)
	}
	h := sha256.New()
	h.Write([]byte(kind + "\x00" + strconv.FormatInt(at, 10) + "\x00"))
	h.Write(payload)
	return h.Sum(nil), nil
}

// EventsRead counts the events Load and LoadRange have read from this
// store since it opened: what tests and benchmarks measure a fold's
// reading by (a recovery from a snapshot reads only the log's tail).
func (s *Store) EventsRead() int64 { return s.eventsRead.Load() }

// SnapshotsDiscarded counts the snapshots LoadSnapshot found and refused
// (another version, or a log that no longer vouches for them).
func (s *Store) SnapshotsDiscarded() int64 { return s.snapshotsDiscarded.Load() }
