package mcp

import (
	"strings"
	"sync"
	"unicode/utf8"
)

// tailSize is how much of a stdio server's stderr is kept: enough for a
// stack trace's first lines or a usage message.
const tailSize = 2048

// tail is an io.Writer keeping the last tailSize bytes written to it.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - tailSize; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

// String is the kept text on one line, starting at a character boundary.
func (t *tail) String() string {
	t.mu.Lock()
	b := t.buf
	for len(b) > 0 && !utf8.RuneStart(b[0]) {
		b = b[1:]
	}
	s := string(b)
	t.mu.Unlock()
	return strings.Join(strings.Fields(s), " ")
}
