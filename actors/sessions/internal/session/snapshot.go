package session

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors/sessions/internal/queue"
	"github.com/troupehq/troupe/persistence"
	"github.com/troupehq/troupe/runtime/conversation"
	"github.com/troupehq/troupe/runtime/proc"
)

// Fold snapshots: recovery starts from the newest snapshot of the fold the
// store vouches for (persistence.LoadSnapshot) and folds only the log
// after it, so a restart's cost does not grow with the session's history.
const (
	// SnapshotKind names this fold's snapshots in the store.
	SnapshotKind = "session.fold"
	// FoldVersion is the version of the fold: bump it with any change to
	// what fold.apply derives or to the fields saved, and every snapshot
	// an older build wrote is discarded and rebuilt from the log.
	FoldVersion = 1
	// SnapshotEvery is how many events past the last snapshot make the
	// session write a new one (off its Receive): recovery then reads at
	// most about this many events, whatever the history.
	SnapshotEvery = 1000
	// snapshotBytesPerEvent spaces the snapshots of a large fold further
	// apart: the next one waits for max(SnapshotEvery, size of the last
	// / this) events. Writing a snapshot costs its size, so a fold
	// that keeps growing (a long conversation never compacted) is not
	// written again and again every 1,000 events, and the tail recovery
	// reads stays in proportion to the snapshot it decodes.
	snapshotBytesPerEvent = 4096
)

// snapshotSlots bounds the snapshot goroutines of all sessions at once:
// a daemon recovering thousands of long sessions together writes their
// snapshots a few at a time, beside its commits.
var snapshotSlots = make(chan struct{}, 2)

// savedFold is the fold as a snapshot keeps it. The deltas recovery holds
// back are folded first (foldDeltas): a fold that goes on from it holds
// the deltas after it, and folds them the same way.
type savedFold struct {
	State State                     `json:"state"`
	Conv  conversation.Conversation `json:"conv"`
	Queue queue.State               `json:"queue"`
	Run   runTracker                `json:"run"`
}

func encodeFold(f *fold) ([]byte, error) {
	return json.Marshal(savedFold{State: f.st, Conv: f.conv, Queue: f.queue, Run: f.run})
}

func decodeFold(b []byte) (fold, error) {
	var v savedFold
	if err := json.Unmarshal(b, &v); err != nil {
		return fold{}, err
	}
	if string(v.State.MCPServers) == "null" {
		// A RawMessage keeps the null that stood for none.
		v.State.MCPServers = nil
	}
	return fold{st: v.State, conv: v.Conv, queue: v.Queue, run: v.Run}, nil
}

// savedRun is runTracker's fields for a snapshot.
type savedRun struct {
	RunID        string            `json:"run_id,omitempty"`
	Steps        int               `json:"steps,omitempty"`
	StepMsgID    string            `json:"step_msg_id,omitempty"`
	Text         []byte            `json:"text,omitempty"`
	Thinking     []byte            `json:"thinking,omitempty"`
	Open         []savedTool       `json:"open,omitempty"`
	ToolCats     map[string]string `json:"tool_cats,omitempty"`
	Allowed      map[string]bool   `json:"allowed,omitempty"`
	Interrupts   int               `json:"interrupts,omitempty"`
	Inconsistent string            `json:"inconsistent,omitempty"`
}

type savedTool struct {
	ID    string     `json:"id"`
	Name  string     `json:"name"`
	Proof proc.Proof `json:"proof"`
}

// MarshalJSON writes the tracker for a snapshot.
func (r runTracker) MarshalJSON() ([]byte, error) {
	v := savedRun{RunID: r.runID, Steps: r.steps, StepMsgID: r.stepMsgID, Text: r.text, Thinking: r.thinking,
		ToolCats: r.toolCats, Allowed: r.allowed, Interrupts: r.interrupts, Inconsistent: r.inconsistent}
	for _, o := range r.open {
		v.Open = append(v.Open, savedTool{ID: o.id, Name: o.name, Proof: o.proof})
	}
	return json.Marshal(v)
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (r *runTracker) UnmarshalJSON(b []byte) error {
	var v savedRun
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*r = runTracker{runID: v.RunID, steps: v.Steps, stepMsgID: v.StepMsgID, text: v.Text, thinking: v.Thinking,
		toolCats: v.ToolCats, allowed: v.Allowed, interrupts: v.Interrupts, inconsistent: v.Inconsistent}
	for _, o := range v.Open {
		r.open = append(r.open, openTool{id: o.ID, name: o.Name, proof: o.Proof})
	}
	// apply makes both maps when it finds toolCats nil: an empty one
	// written (omitted) must not come back nil beside the other.
	if r.toolCats == nil {
		r.toolCats = map[string]string{}
	}
	if r.allowed == nil {
		r.allowed = map[string]bool{}
	}
	return nil
}

// loadSnapshot is the fold of id's newest valid snapshot, ok false when
// there is none (the fold starts from the log's first event).
func loadSnapshot(ctx context.Context, store *persistence.Store, id string) (f fold, size int64, ok bool, err error) {
	snap, ok, err := store.LoadSnapshot(ctx, id, SnapshotKind, FoldVersion)
	if err != nil || !ok {
		return fold{}, 0, false, err
	}
	f, err = decodeFold(snap.Data)
	if err != nil || f.st.LastSeq != snap.Seq || f.st.ID != id {
		// Written by this version, yet unreadable: fold from the log.
		return fold{}, 0, false, nil
	}
	return f, int64(len(snap.Data)), true, nil
}

// snapshotted tells the session a snapshot goroutine ended: the seq its
// snapshot folds through, 0 when it wrote none, and its size.
type snapshotted struct{ seq, size int64 }

// snapshotter is the session's snapshot goroutine, at most one at a time.
type snapshotter struct {
	seq     int64              // the seq of the newest snapshot (or the one being written)
	size    int64              // its size in bytes (see snapshotBytesPerEvent)
	cancel  context.CancelFunc // of the running goroutine; nil when none runs
	started int64              // the seq committed when it started
}

// maybeSnapshot starts a snapshot goroutine once SnapshotEvery events have
// committed past the last snapshot. It folds the store's log from that
// snapshot by recovery's own code, never the live fold, so a snapshot is
// exactly what recovery would have folded; the actor only starts it.
func (s *session) maybeSnapshot(ctx actor.Context) {
	every := max(SnapshotEvery, s.snap.size/snapshotBytesPerEvent)
	if s.snap.cancel != nil || s.failed || s.missing || s.recovering || s.committed-s.snap.seq < every {
		return
	}
	sctx, cancel := context.WithCancel(context.Background())
	s.snap.cancel, s.snap.started = cancel, s.committed
	self, root, store, id, log := ctx.Self(), ctx.ActorSystem().Root, s.cfg.Store, s.cfg.ID, s.log
	go func() {
		seq, size, err := writeSnapshot(sctx, store, id)
		if err != nil && sctx.Err() == nil {
			log.Warn("fold snapshot not written", "error", err)
		}
		root.Send(self, &snapshotted{seq: seq, size: size})
	}()
}

func (s *session) onSnapshotted(ctx actor.Context, m *snapshotted) {
	if s.snap.cancel == nil {
		return
	}
	s.snap.cancel()
	s.snap.cancel = nil
	if m.seq > 0 {
		s.snap.seq, s.snap.size = m.seq, m.size
	} else {
		// None written (an error, or nothing new): wait another
		// SnapshotEvery events before trying again.
		s.snap.seq = s.snap.started
	}
	s.maybeSnapshot(ctx)
}

// stopSnapshot cancels a running snapshot goroutine as the actor stops.
func (s *session) stopSnapshot() {
	if s.snap.cancel != nil {
		s.snap.cancel()
		s.snap.cancel = nil
	}
}

// writeSnapshot folds id's log from its newest snapshot, as recovery does,
// and saves the fold, returning the seq it folds through and its size.
func writeSnapshot(ctx context.Context, store *persistence.Store, id string) (seq, size int64, err error) {
	select {
	case snapshotSlots <- struct{}{}:
		defer func() { <-snapshotSlots }()
	case <-ctx.Done():
		return 0, 0, ctx.Err()
	}
	r := recoverFromStore(ctx, store, id)
	switch {
	case r.err != nil:
		return 0, 0, r.err
	case r.missing || r.failed || r.reason != "" || r.fold.st.LastSeq == 0 || r.fold.st.LastSeq == r.from:
		return 0, 0, nil
	}
	data, err := encodeFold(&r.fold)
	if err != nil {
		return 0, 0, fmt.Errorf("encode fold of %s: %w", id, err)
	}
	seq = r.fold.st.LastSeq
	if err := store.SaveSnapshot(ctx, id, persistence.Snapshot{Kind: SnapshotKind, Version: FoldVersion, Seq: seq, Data: data}); err != nil {
		return 0, 0, err
	}
	return seq, int64(len(data)), nil
}
