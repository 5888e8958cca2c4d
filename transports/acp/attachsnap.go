package acp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/transports/acpupdate"
	"github.com/troupehq/troupe/transports/projection"
)

// Attach snapshots: an attachment folds its session's log into a view and
// the state its projection keeps beside it (the tool calls shown, the
// turns ended, the latest update of each state kind...). A session/attach
// after_message an update id replays only the updates after that id, yet
// folded from seq 1 to know that state; with a snapshot of the fold, taken
// at a seq no later than the anchor, it folds only the log after the
// snapshot. The log stays the one truth: the store returns a snapshot
// only while the event at its seq is still the one it was taken after,
// and of this version (persistence.Store.LoadSnapshot), and an anchor
// before the snapshot's seq folds from seq 1 as before.
//
// A snapshot is taken only where the fold is quiet: no run under way, no
// prompt queued, no compaction under way. There the view is its plain
// fields (no streaming step, no open tool call), which is what savedAttach
// keeps.
const (
	// attachSnapKind names these snapshots in the store.
	attachSnapKind = "acp.attach"
	// attachSnapVersion is the version of the fold saved: bump it with
	// any change to what project folds or to savedAttach, and every
	// snapshot an older build wrote is discarded and rebuilt.
	attachSnapVersion = 1
	// DefaultAttachSnapshotEvery is Config.AttachSnapshotEvery's default.
	DefaultAttachSnapshotEvery = 1000
	// attachSnapBytesPerEvent spaces a large snapshot's successors
	// further apart (max(every, size/this) events), as the session's
	// fold snapshots are.
	attachSnapBytesPerEvent = 4096
)

// savedAttach is an attachment's fold at a quiet seq.
type savedAttach struct {
	Settings event.Settings         `json:"settings"`
	Cwd      string                 `json:"cwd,omitempty"`
	Title    string                 `json:"title,omitempty"`
	ChildOf  string                 `json:"child_of,omitempty"`
	Usage    event.Usage            `json:"usage"`
	Forks    []projection.ForkPoint `json:"forks,omitempty"`

	Shown         map[string]bool       `json:"shown,omitempty"`
	Created       *event.CreatedPayload `json:"created,omitempty"`
	TurnStartedAt int64                 `json:"turn_started_at,omitempty"`
	LastUsage     *acpupdate.Usage      `json:"last_usage,omitempty"`
	TurnEnds      map[string]int64      `json:"turn_ends,omitempty"`
	LastTurn      string                `json:"last_turn,omitempty"`
	Raised        map[string]int64      `json:"raised,omitempty"`
	Flags         []event.AttentionFlag `json:"flags,omitempty"`
	// States are the latest update of each state kind, as sent.
	States map[string]json.RawMessage `json:"states,omitempty"`
	// Models fingerprints the models the daemon offered (modelsPrint):
	// the usage and config options saved were worked out from them, so
	// a snapshot taken under other models is not used.
	Models string `json:"models"`
}

// modelsPrint fingerprints what models offers: its default and its list.
func modelsPrint(models sessions.Models) string {
	if models == nil {
		return ""
	}
	provider, model := models.Default()
	b, err := json.Marshal(struct {
		Provider, Model string
		List            []sessions.Model
	}{provider, model, models.List()})
	if err != nil {
		return "unknown"
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// quiet reports a fold a snapshot can keep whole in savedAttach.
func (a *attachment) quiet() bool {
	v := a.view
	return len(v.Runs) == 0 && v.Compaction == nil && v.Pending.Len() == 0
}

func (a *attachment) saved(models sessions.Models) (savedAttach, error) {
	v := a.view
	s := savedAttach{Settings: v.Settings, Cwd: v.Cwd, Title: v.Title, ChildOf: v.ChildOf, Usage: v.Usage, Forks: v.Forks,
		Shown: a.shown, Created: a.info.created, TurnStartedAt: a.info.turnStartedAt, LastUsage: a.info.usage,
		TurnEnds: a.turnEnds, LastTurn: a.lastTurn, Raised: a.raised, Flags: a.flags, States: map[string]json.RawMessage{},
		Models: modelsPrint(models)}
	for kind, p := range a.states {
		b, err := json.Marshal(p.Update)
		if err != nil {
			return savedAttach{}, err
		}
		s.States[kind] = b
	}
	return s, nil
}

// restore makes the attachment's fold the one s saved at seq.
func (a *attachment) restore(s savedAttach, seq int64) {
	v := a.view
	v.LastSeq, v.Settings, v.Cwd, v.Title, v.ChildOf, v.Usage, v.Forks = seq, s.Settings, s.Cwd, s.Title, s.ChildOf, s.Usage, s.Forks
	a.info.created, a.info.turnStartedAt, a.info.usage = s.Created, s.TurnStartedAt, s.LastUsage
	a.lastTurn, a.flags = s.LastTurn, s.Flags
	for k, b := range s.Shown {
		a.shown[k] = b
	}
	for k, n := range s.TurnEnds {
		a.turnEnds[k] = n
	}
	for k, n := range s.Raised {
		a.raised[k] = n
	}
	if a.states == nil {
		a.states = map[string]*updateParams{}
	}
	for kind, raw := range s.States {
		a.states[kind] = &updateParams{SessionID: a.id, Update: raw}
	}
}

// snapshotEvery is how many events past the last snapshot make a new
// one; <0 is never (nor is one read).
func (c *conn) snapshotEvery() int64 {
	if n := c.cfg.AttachSnapshotEvery; n != 0 {
		return int64(n)
	}
	return DefaultAttachSnapshotEvery
}

// maybeSnapshot saves the fold just past seq when it is quiet and far
// enough past the session's last snapshot. The attachments of a session
// share that seq (sharedFrames.snapSeq): one of them writes it.
func (a *attachment) maybeSnapshot(c *conn, ctx actor.Context, seq int64) {
	every := c.snapshotEvery()
	if every < 0 || a.tail != nil || a.frames == nil || !a.quiet() {
		return
	}
	f := a.frames
	last := f.snapSeq.Load()
	if seq-last < max(every, f.snapSize.Load()/attachSnapBytesPerEvent) || !f.snapSeq.CompareAndSwap(last, seq) {
		return
	}
	s, err := a.saved(c.cfg.Models)
	var data []byte
	if err == nil {
		data, err = json.Marshal(s)
	}
	if err != nil {
		c.log(ctx).Warn("attach snapshot not encoded", "session", a.id, "error", err)
		return
	}
	f.snapSize.Store(int64(len(data)))
	f.snapNext.Store(&sessions.Snapshot{Kind: attachSnapKind, Version: attachSnapVersion, Seq: seq, Data: data})
	if !f.snapWriting.CompareAndSwap(false, true) {
		return // the writer under way takes it next, in place of any older
	}
	store, id, log := c.cfg.Sessions, a.id, c.log(ctx)
	// Each write is bounded by its timeout; the goroutine ends once no
	// newer snapshot waits. One at a time per session, newest last, so an
	// older one never lands after a newer.
	go func() {
		for {
			snap := f.snapNext.Swap(nil)
			if snap == nil {
				f.snapWriting.Store(false)
				if f.snapNext.Load() == nil || !f.snapWriting.CompareAndSwap(false, true) {
					return
				}
				continue
			}
			if snap.Seq <= f.snapWritten.Load() {
				continue // taken before the one written (by a slower attachment)
			}
			wctx, cancel := context.WithTimeout(context.Background(), snapshotWriteTimeout)
			err := store.SaveSnapshot(wctx, id, *snap)
			cancel()
			if err != nil {
				log.Warn("attach snapshot not written", "session", id, "seq", snap.Seq, "error", err)
				continue
			}
			f.snapWritten.Store(snap.Seq)
		}
	}()
}

// snapshotWriteTimeout bounds one attach snapshot's write.
const snapshotWriteTimeout = 30 * time.Second

// snapLoaded is the attach snapshot read for a (ok false: none usable).
type snapLoaded struct {
	a    *attachment
	snap sessions.Snapshot
	ok   bool
	err  error
}

// fromSnapshot reads the session's attach snapshot before the first
// subscription, when a snapshot may serve the replay asked for
// (snapshotServes): the subscription then starts past the snapshot if it
// serves it (onSnapLoaded). Any other attach subscribes from seq 1.
func (a *attachment) fromSnapshot(c *conn, ctx actor.Context) bool {
	o := a.replay.opts
	if c.snapshotEvery() < 0 || !snapshotServes(0, o) {
		return false
	}
	lctx, cancel := context.WithCancel(context.Background())
	a.stopSnap = cancel
	root, self, store, id := ctx.ActorSystem().Root, ctx.Self(), c.cfg.Sessions, a.id
	go func() {
		snap, ok, err := store.LoadSnapshot(lctx, id, attachSnapKind, attachSnapVersion)
		if lctx.Err() == nil {
			root.Send(self, &snapLoaded{a: a, snap: snap, ok: ok, err: err})
		}
	}()
	return true
}

func (c *conn) onSnapLoaded(ctx actor.Context, m *snapLoaded) {
	a := m.a
	if c.att[a.id] != a || a.stopSnap == nil {
		return
	}
	a.stopSnap()
	a.stopSnap = nil
	if m.err != nil {
		c.log(ctx).Warn("reading the attach snapshot failed", "session", a.id, "error", m.err)
	}
	from := int64(1)
	if m.ok && a.replay != nil && snapshotServes(m.snap.Seq, a.replay.opts) {
		var s savedAttach
		if err := json.Unmarshal(m.snap.Data, &s); err == nil && s.Models == modelsPrint(c.cfg.Models) {
			a.restore(s, m.snap.Seq)
			from = m.snap.Seq + 1
		}
	}
	if m.ok {
		// The session's next snapshot follows this one, not seq 0.
		a.frames.snapshotAt(m.snap.Seq, int64(len(m.snap.Data)))
	}
	a.subscribe(c, ctx, from, true)
}

// snapshotServes reports a snapshot through seq that the replay o asks
// for can start from: it folds nothing the replay shows. A replay of no
// history (none, pending_only) starts from any; one after an update id
// from one no later than the anchor (an anchor after a whole event may be
// that event; one among an event's updates needs the event folded again);
// any other (full, a message-id anchor, found only on the way) from none.
func snapshotServes(seq int64, o attachOptions) bool {
	switch o.policy {
	case policyNone, policyPendingOnly:
		return true
	case policyAfter:
	default:
		return false
	}
	pos, ok := acpupdate.ParseID(o.anchor)
	if !ok {
		return false
	}
	if pos.Index == math.MaxInt {
		return seq <= pos.Seq
	}
	return seq < pos.Seq
}
