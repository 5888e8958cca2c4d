package acp

import (
	"sync/atomic"

	"github.com/troupehq/troupe/actors/sessions"
)

// sharedFrames holds the chunk frames recently built for one session, so
// that of the connections attached to it only the first to project an
// event builds its frame and the others send the same bytes. Slots are
// indexed by seq and replaced lock-free; a slot holding another seq is a
// miss, and the connection builds the frame itself. The slots exist only
// while a second connection is attached: a session with one client (most
// of them) has nothing to share and keeps no frames.
type sharedFrames struct {
	refs  int // connections attached (under the hub's lock)
	slots atomic.Pointer[[frameSlots]atomic.Pointer[sharedFrame]]
	// snapSeq and snapSize are the session's last attach snapshot (see
	// attachsnap.go): the one read or written by any of its attachments.
	snapSeq, snapSize atomic.Int64
	// snapNext is the snapshot waiting to be written (the newest taken),
	// snapWriting that a writer is under way, snapWritten the seq of the
	// last one it wrote (attachsnap.go).
	snapNext    atomic.Pointer[sessions.Snapshot]
	snapWriting atomic.Bool
	snapWritten atomic.Int64
}

// snapshotAt records a snapshot through seq of size bytes found in the
// store, unless one past it is known already.
func (s *sharedFrames) snapshotAt(seq, size int64) {
	for {
		last := s.snapSeq.Load()
		if last >= seq {
			return
		}
		if s.snapSeq.CompareAndSwap(last, seq) {
			s.snapSize.Store(size)
			return
		}
	}
}

// attached records a connection joining (under the hub's lock); the second
// one makes the slots.
func (s *sharedFrames) attached() {
	s.refs++
	if s.refs == 2 && s.slots.Load() == nil {
		s.slots.Store(new([frameSlots]atomic.Pointer[sharedFrame]))
	}
}

// detached records a connection leaving (under the hub's lock); down to one,
// the frames are dropped. It reports whether none is left.
func (s *sharedFrames) detached() bool {
	s.refs--
	if s.refs < 2 {
		s.slots.Store(nil)
	}
	return s.refs <= 0
}

// frameSlots covers what the attached connections of one session are
// apart from each other when they keep up.
const frameSlots = 4096

type sharedFrame struct {
	seq int64
	b   []byte
}

func (s *sharedFrames) get(seq int64) []byte {
	if s == nil {
		return nil
	}
	slots := s.slots.Load()
	if slots == nil {
		return nil
	}
	if f := slots[seq%frameSlots].Load(); f != nil && f.seq == seq {
		return f.b
	}
	return nil
}

func (s *sharedFrames) put(seq int64, b []byte) {
	if s == nil {
		return
	}
	if slots := s.slots.Load(); slots != nil {
		slots[seq%frameSlots].Store(&sharedFrame{seq: seq, b: b})
	}
}
