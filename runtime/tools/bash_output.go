package tools

import (
	"bytes"
	"cmp"
	"fmt"
	"os"
	"strings"
	"sync"
)

// tailKeep is how much output stays in memory once the rest is on disk: a
// little over the inline limit, so truncateTail always has a line or rune
// boundary to cut at.
const tailKeep = MaxOutputBytes + 4096

// outputSink collects a command's interleaved stdout and stderr. Output
// stays in memory until it outgrows the inline limits; then the whole
// stream goes to a file in the spill directory and only a tail is kept.
type outputSink struct {
	spillDir string

	mu       sync.Mutex
	buf      []byte // everything so far, or only a tail once spilling
	total    int
	newlines int
	spill    *os.File
	spillErr error
	changed  bool
}

// Write never fails: an error would make exec stop copying, and the
// command would die of SIGPIPE because its log could not be saved.
func (s *outputSink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.total += len(p)
	s.newlines += bytes.Count(p, []byte{'\n'})
	s.changed = true
	if s.spill == nil && s.spillErr == nil &&
		(len(s.buf)+len(p) > MaxOutputBytes || s.newlines >= MaxOutputLines) {
		s.startSpill()
	}
	if s.spill != nil {
		if _, err := s.spill.Write(p); err != nil {
			s.spillErr = fmt.Errorf("write %s: %w", s.spill.Name(), err)
			_ = s.spill.Close()
			s.spill = nil
		}
	}
	s.buf = append(s.buf, p...)
	if s.spilling() && len(s.buf) > 4*tailKeep {
		s.buf = append([]byte(nil), s.buf[len(s.buf)-tailKeep:]...)
	}
	return len(p), nil
}

// spilling reports whether buf may have stopped holding everything.
func (s *outputSink) spilling() bool { return s.spill != nil || s.spillErr != nil }

func (s *outputSink) startSpill() {
	dir := cmp.Or(s.spillDir, os.TempDir())
	if err := os.MkdirAll(dir, 0o700); err != nil {
		s.spillErr = fmt.Errorf("create spill directory: %w", err)
		return
	}
	f, err := os.CreateTemp(dir, "bash-*.log")
	if err != nil {
		s.spillErr = fmt.Errorf("create spill file: %w", err)
		return
	}
	if _, err := f.Write(s.buf); err != nil {
		s.spillErr = fmt.Errorf("write %s: %w", f.Name(), err)
		_ = f.Close()
		return
	}
	s.spill = f
}

// tail renders what the model sees of the output so far.
func (s *outputSink) tail() (text string, truncated bool) {
	text, cut := truncateTail(string(s.buf), MaxOutputBytes, MaxOutputLines)
	return strings.ToValidUTF8(text, "\uFFFD"), cut || len(s.buf) < s.total
}

// takeChanged returns the output so far if it changed since the last call.
func (s *outputSink) takeChanged() (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.changed {
		return "", false
	}
	s.changed = false
	text, _ := s.tail()
	return text, true
}

// sinkSummary is the final state of an outputSink.
type sinkSummary struct {
	text      string
	truncated bool
	total     int
	lines     int
	fullPath  string // set only when truncated and the file was saved
	spillErr  error
}

// finish closes the spill file and keeps it only if something was cut.
// Call it only after the writers have stopped.
func (s *outputSink) finish() sinkSummary {
	s.mu.Lock()
	defer s.mu.Unlock()
	text, truncated := s.tail()
	sum := sinkSummary{text: text, truncated: truncated, total: s.total, lines: s.newlines, spillErr: s.spillErr}
	if s.total > 0 && s.buf[len(s.buf)-1] != '\n' {
		sum.lines++
	}
	if s.spill == nil {
		return sum
	}
	name := s.spill.Name()
	if err := s.spill.Close(); err != nil {
		sum.spillErr = fmt.Errorf("close %s: %w", name, err)
	}
	s.spill = nil
	if !truncated {
		_ = os.Remove(name)
		return sum
	}
	if sum.spillErr == nil {
		sum.fullPath = name
	}
	return sum
}
