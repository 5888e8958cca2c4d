package testkit

import (
	"bytes"
	"sync"
)

// Buffer is a bytes.Buffer safe for one writer goroutine and readers in
// others: a log handler's or a process's output under test.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *Buffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *Buffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
