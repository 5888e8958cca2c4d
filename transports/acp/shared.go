package acp

import "sync/atomic"

// sharedFrames holds the chunk frames recently built for one session, so
// that of the connections attached to it only the first to project an
// event builds its frame and the others send the same bytes. Slots are
// indexed by seq and replaced lock-free; a slot holding another seq is a
// miss, and the connection builds the frame itself.
type sharedFrames struct {
	refs  int // connections attached (under the hub's lock)
	slots [frameSlots]atomic.Pointer[sharedFrame]
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
	if f := s.slots[seq%frameSlots].Load(); f != nil && f.seq == seq {
		return f.b
	}
	return nil
}

func (s *sharedFrames) put(seq int64, b []byte) {
	if s != nil {
		s.slots[seq%frameSlots].Store(&sharedFrame{seq: seq, b: b})
	}
}
