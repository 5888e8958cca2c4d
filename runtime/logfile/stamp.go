package logfile

import (
	"bytes"
	"io"
	"sync"
	"time"
)

// StampFormat is the time a log file's lines start with: the date too,
// since a log file outlives the day (a terminal's logs show the time alone).
const StampFormat = "2006-01-02 15:04:05.000"

// Stamped writes to w with each line started by the time it was written,
// for the plain lines a process prints beside its logger's records
// ("troupe daemon: listening on …"), so every line of a log file says when.
func Stamped(w io.Writer, now func() time.Time) io.Writer {
	if now == nil {
		now = time.Now
	}
	return &stamped{w: w, now: now, lineStart: true}
}

type stamped struct {
	mu        sync.Mutex
	w         io.Writer
	now       func() time.Time
	lineStart bool
	buf       bytes.Buffer
}

// Write writes p in one write to w, a stamp before each line it starts.
func (s *stamped) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	total := len(p)
	s.buf.Reset()
	stamp := s.now().Format(StampFormat) + " "
	for len(p) > 0 {
		if s.lineStart {
			s.buf.WriteString(stamp)
		}
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			s.buf.Write(p)
			s.lineStart = false
			break
		}
		s.buf.Write(p[:i+1])
		p = p[i+1:]
		s.lineStart = true
	}
	if _, err := s.w.Write(s.buf.Bytes()); err != nil {
		return 0, err
	}
	return total, nil
}
