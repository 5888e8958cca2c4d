package stdinring

import (
	"context"
	"fmt"
	"os"
	"sync"
	"unicode/utf8"
)

// Modes a ring is opened in.
const (
	ModeMemory = "memory"
	ModeFile   = "file"
)

// Ring is one session's stdin stream: the last cap bytes in memory and,
// in file mode, a mirror of the first fileCap bytes on disk.
type Ring struct {
	mu      sync.Mutex
	mode    string
	buf     []byte // circular; byte at absolute offset o is buf[o%cap]
	start   int64  // oldest offset kept in memory
	end     int64  // the write cursor: offset after the last byte written
	eof     bool
	changed chan struct{} // closed and replaced on every write and on eof

	file     *os.File // file mode only
	filePath string
	fileCap  int64
	fileEnd  int64 // bytes [0, fileEnd) are in the file
	fileErr  error // the mirror stopped on this error
}

func newRing(mode string, capacity int64, file *os.File, fileCap int64) *Ring {
	r := &Ring{mode: mode, buf: make([]byte, capacity), changed: make(chan struct{}), file: file, fileCap: fileCap}
	if file != nil {
		r.filePath = file.Name()
	}
	return r
}

// Write appends p and returns the write cursor after it. A write after
// eof is refused.
func (r *Ring) Write(p []byte, eof bool) (int64, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.eof {
		return r.end, fmt.Errorf("stdin already ended at byte %d", r.end)
	}
	r.mirror(p)
	c := int64(len(r.buf))
	if int64(len(p)) > c {
		// Only the last c bytes can be kept; the rest is evicted at once.
		r.end += int64(len(p)) - c
		p = p[int64(len(p))-c:]
	}
	for len(p) > 0 {
		at := r.end % c
		n := copy(r.buf[at:], p)
		p = p[n:]
		r.end += int64(n)
	}
	if r.end-r.start > c {
		r.start = r.end - c
	}
	if eof {
		r.eof = true
	}
	close(r.changed)
	r.changed = make(chan struct{})
	return r.end, nil
}

// mirror writes p to the file while it is under its cap; the cap is soft
// in that the chunk crossing it is cut there rather than refused.
func (r *Ring) mirror(p []byte) {
	if r.file == nil || r.fileErr != nil || r.fileEnd != r.end {
		return
	}
	room := r.fileCap - r.fileEnd
	if room <= 0 {
		return
	}
	if int64(len(p)) > room {
		p = p[:room]
	}
	n, err := r.file.WriteAt(p, r.fileEnd)
	r.fileEnd += int64(n)
	if err != nil {
		r.fileErr = err
	}
}

// Gap is a span of the stream no longer kept: [From, To).
type Gap struct {
	From  int64 `json:"from"`
	To    int64 `json:"to"`
	Bytes int64 `json:"bytes"`
}

// Chunk is what a read returns: Data starts at Cursor and ends at Next;
// Gap is set when the read asked for bytes below Cursor that were evicted.
type Chunk struct {
	Cursor int64  `json:"cursor"`
	Next   int64  `json:"nextCursor"`
	Data   []byte `json:"-"`
	Gap    *Gap   `json:"gap,omitempty"`
	// EOF: the producer ended the stream and Next is its end.
	EOF bool `json:"eof"`
}

// Read returns up to max bytes from cursor on. Bytes evicted before it are
// skipped and reported as a gap; a cursor past the write cursor reads
// nothing. The end is pulled back to a UTF-8 boundary when a character is
// cut, so Next is where the following read starts cleanly.
func (r *Ring) Read(cursor, max int64) (Chunk, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if cursor < 0 {
		cursor = 0
	}
	if cursor > r.end {
		cursor = r.end
	}
	ch := Chunk{Cursor: cursor}
	if cursor < r.fileEnd && r.start > cursor {
		n := min(max, r.fileEnd-cursor)
		ch.Data = make([]byte, n)
		if _, err := r.file.ReadAt(ch.Data, cursor); err != nil {
			return Chunk{}, fmt.Errorf("read stdin mirror %s: %w", r.filePath, err)
		}
	} else {
		if cursor < r.start {
			ch.Gap = &Gap{From: cursor, To: r.start, Bytes: r.start - cursor}
			ch.Cursor = r.start
		}
		ch.Data = r.copyOut(ch.Cursor, min(max, r.end-ch.Cursor))
	}
	if more := ch.Cursor+int64(len(ch.Data)) < r.end; more {
		// A read too short for one character still moves on.
		if t := trimRune(ch.Data); len(t) > 0 {
			ch.Data = t
		}
	}
	ch.Next = ch.Cursor + int64(len(ch.Data))
	ch.EOF = r.eof && ch.Next == r.end
	return ch, nil
}

// copyOut copies n bytes from absolute offset from, which must be in
// [start, end).
func (r *Ring) copyOut(from, n int64) []byte {
	if n <= 0 {
		return nil
	}
	c := int64(len(r.buf))
	out := make([]byte, n)
	at := from % c
	k := copy(out, r.buf[at:min(c, at+n)])
	copy(out[k:], r.buf[:n-int64(k)])
	return out
}

// trimRune drops an incomplete UTF-8 character at the end of b.
func trimRune(b []byte) []byte {
	for i := 1; i <= utf8.UTFMax && i <= len(b); i++ {
		c := b[len(b)-i]
		if c < utf8.RuneSelf {
			return b
		}
		if utf8.RuneStart(c) {
			if !utf8.FullRune(b[len(b)-i:]) {
				return b[:len(b)-i]
			}
			return b
		}
	}
	return b
}

// Info is the ring's state.
type Info struct {
	Mode          string `json:"mode"`
	CapacityBytes int64  `json:"capacityBytes"`
	FileCapBytes  int64  `json:"fileCapBytes,omitempty"`
	FilePath      string `json:"filePath,omitempty"`
	// StartCursor is the oldest offset still kept (memory or file);
	// EvictedBytes were dropped from neither and read as a gap.
	StartCursor  int64 `json:"startCursor"`
	WriteCursor  int64 `json:"writeCursor"`
	EvictedBytes int64 `json:"evictedBytes"`
	EOF          bool  `json:"eof"`
}

// Info reports the ring's cursors and settings.
func (r *Ring) Info() Info {
	r.mu.Lock()
	defer r.mu.Unlock()
	first, evicted := r.start, r.start
	if r.fileEnd > 0 {
		first, evicted = 0, max(0, r.start-r.fileEnd)
	}
	return Info{Mode: r.mode, CapacityBytes: int64(len(r.buf)), FileCapBytes: r.fileCap, FilePath: r.filePath,
		StartCursor: first, WriteCursor: r.end, EvictedBytes: evicted, EOF: r.eof}
}

// Wait returns once the write cursor is past cursor or the stream ended,
// or ctx ends; it reports the write cursor and eof then.
func (r *Ring) Wait(ctx context.Context, cursor int64) (end int64, eof bool, err error) {
	for {
		r.mu.Lock()
		end, eof, changed := r.end, r.eof, r.changed
		r.mu.Unlock()
		if end > cursor || eof {
			return end, eof, nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return end, eof, ctx.Err()
		}
	}
}

// close removes the mirror; reads then see its bytes as evicted.
func (r *Ring) close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.file == nil {
		return nil
	}
	err := r.file.Close()
	r.file, r.fileEnd = nil, 0
	if rerr := os.Remove(r.filePath); rerr != nil && err == nil {
		err = rerr
	}
	return err
}
