package persistence

import (
	"context"
	"fmt"
	"os"
	"time"
)

// ServerRecord is a running llama-server as the store records it.
type ServerRecord struct {
	Name         string
	PID, PGID    int
	Started      int64 // the pid's start time; 0 unknown
	Host         string
	Port         int
	OwnerPID     int
	OwnerStarted int64
	RecordedAt   time.Time
}

// NewServerRecord describes a server this process just started.
func NewServerRecord(name string, pid, pgid int, host string, port int) ServerRecord {
	self := os.Getpid()
	return ServerRecord{Name: name, PID: pid, PGID: pgid, Started: procStart(pid), Host: host, Port: port,
		OwnerPID: self, OwnerStarted: procStart(self), RecordedAt: time.Now()}
}

// Running reports whether the recorded program still runs.
func (r ServerRecord) Running() bool { return processAlive(r.PID, r.Started) }

// OwnerGone reports whether the troupe process that started it has ended,
// so that no one manages the server any more.
func (r ServerRecord) OwnerGone() bool { return !processAlive(r.OwnerPID, r.OwnerStarted) }

// RecordServer records (or replaces) config r.Name's running server. It
// writes on the writer connection outside the store writer's batches: one
// small row per server start, never on a hot path.
func (s *Store) RecordServer(ctx context.Context, r ServerRecord) error {
	if err := s.writable(); err != nil {
		return err
	}
	_, err := s.writer.ExecContext(ctx, s.d.bind(`INSERT INTO llama_servers
		(name, pid, pgid, started, host, port, owner_pid, owner_started, recorded_at) VALUES (?,?,?,?,?,?,?,?,?)
		ON CONFLICT (name) DO UPDATE SET pid = excluded.pid, pgid = excluded.pgid, started = excluded.started,
			host = excluded.host, port = excluded.port, owner_pid = excluded.owner_pid,
			owner_started = excluded.owner_started, recorded_at = excluded.recorded_at`),
		r.Name, r.PID, r.PGID, r.Started, r.Host, r.Port, r.OwnerPID, r.OwnerStarted, r.RecordedAt.UnixNano())
	if err != nil {
		return fmt.Errorf("record server %s: %w", r.Name, err)
	}
	return nil
}

// ForgetServer deletes config name's record if it is still pid's: a
// newer run's record stays.
func (s *Store) ForgetServer(ctx context.Context, name string, pid int) error {
	if err := s.writable(); err != nil {
		return err
	}
	if _, err := s.writer.ExecContext(ctx, s.d.bind(`DELETE FROM llama_servers WHERE name = ? AND pid = ?`), name, pid); err != nil {
		return fmt.Errorf("forget server %s: %w", name, err)
	}
	return nil
}

// Servers lists the recorded servers by name.
func (s *Store) Servers(ctx context.Context) ([]ServerRecord, error) {
	rows, err := s.reader.QueryContext(ctx, `SELECT name, pid, pgid, started, host, port, owner_pid, owner_started, recorded_at
		FROM llama_servers ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("list servers: %w", err)
	}
	defer rows.Close()
	var out []ServerRecord
	for rows.Next() {
		var r ServerRecord
		var at int64
		if err := rows.Scan(&r.Name, &r.PID, &r.PGID, &r.Started, &r.Host, &r.Port, &r.OwnerPID, &r.OwnerStarted, &at); err != nil {
			return nil, fmt.Errorf("list servers: %w", err)
		}
		r.RecordedAt = time.Unix(0, at)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list servers: %w", err)
	}
	return out, nil
}
