package daemon

import (
	"errors"
	"net"
	"testing"
)

// pipeConn is one end of a net.Pipe, the other end closed with it.
func pipeConn(t *testing.T) net.Conn {
	a, b := net.Pipe()
	t.Cleanup(func() { a.Close(); b.Close() })
	return a
}

// Past maxPending, a new connection closes the oldest pending one; a
// trusted connection is never counted nor evicted.
func TestConnsEvictOldestPending(t *testing.T) {
	cs := newConns(2)
	c1, c2 := cs.add(pipeConn(t)), cs.add(pipeConn(t))
	cs.trust(c1)
	c3 := cs.add(pipeConn(t))
	c4 := cs.add(pipeConn(t)) // evicts c2, the oldest pending
	if !c2.closed || c1.closed || c3.closed || c4.closed {
		t.Fatalf("closed: c1 %v c2 %v c3 %v c4 %v", c1.closed, c2.closed, c3.closed, c4.closed)
	}
	if _, err := c2.Write([]byte("x")); !errors.Is(err, net.ErrClosed) && err == nil {
		t.Fatal("an evicted connection still writes")
	}
	if n := cs.pendingCount(); n != 2 {
		t.Fatalf("%d pending", n)
	}
	c3.Close()
	if n := cs.pendingCount(); n != 1 {
		t.Fatalf("%d pending after a close", n)
	}
}

// A connection bound to a key is closed when the key is dropped, while
// the request is under way or for good once hijacked; unbound after its
// request, it is left alone; the one excepted is never closed.
func TestConnsDropBoundConnections(t *testing.T) {
	cs := newConns(10)
	during, after, hijacked, asking := cs.add(pipeConn(t)), cs.add(pipeConn(t)), cs.add(pipeConn(t)), cs.add(pipeConn(t))
	_ = cs.bind(during, "k")
	cs.bind(after, "k")()
	unbind := cs.bind(hijacked, "k")
	cs.hijacked(hijacked)
	unbind()
	_ = cs.bind(asking, "k")
	_ = cs.bind(cs.add(pipeConn(t)), "other")
	cs.drop("k", asking)
	if !during.closed || after.closed || !hijacked.closed || asking.closed {
		t.Fatalf("closed: during %v after %v hijacked %v asking %v", during.closed, after.closed, hijacked.closed, asking.closed)
	}
	if len(cs.byKey["k"]) != 1 || len(cs.byKey["other"]) != 1 {
		t.Fatalf("bindings left: %v", cs.byKey)
	}
	if cs.pendingCount() != 0 {
		t.Fatal("bound connections still pending")
	}
}
