package daemon

import (
	"container/list"
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"sync"
)

// conns tracks the daemon's open connections, for two boundaries:
//
//   - Connections that have not yet presented a valid credential are
//     pending, and at most maxPending are: past that, accepting one more
//     closes the oldest pending one. A token holder's fresh connection
//     authenticates in its first request's headers, one round trip after
//     the accept, so a crowd of unauthenticated connections (slow headers,
//     slow bodies, idle sockets) cannot starve it of descriptors, while
//     each of those already has its own read deadline.
//   - A connection that authenticated is bound, for the time of the
//     request (and for good once the request hijacked it: a WebSocket),
//     to the credential it used; when that credential is revoked or
//     expires, or its program dies, drop closes every connection bound
//     to it.
type conns struct {
	maxPending int

	mu      sync.Mutex
	pending *list.List // of *trackedConn, oldest first
	byKey   map[string]map[*trackedConn]struct{}
}

func newConns(maxPending int) *conns {
	return &conns{maxPending: maxPending, pending: list.New(), byKey: map[string]map[*trackedConn]struct{}{}}
}

// trackedConn is one accepted connection.
type trackedConn struct {
	net.Conn
	cs *conns

	// Guarded by cs.mu.
	elem     *list.Element // in cs.pending while pending
	trusted  bool
	hijacked bool
	keys     map[string]int // credential keys, with the requests bound under each
	closed   bool

	once sync.Once
}

// listener accepts trackedConns.
type listener struct {
	net.Listener
	cs *conns
}

func (l *listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return l.cs.add(c), nil
}

// add tracks c as pending, closing the oldest pending connection when
// there are too many.
func (cs *conns) add(c net.Conn) *trackedConn {
	tc := &trackedConn{Conn: c, cs: cs, keys: map[string]int{}}
	var evict *trackedConn
	cs.mu.Lock()
	tc.elem = cs.pending.PushBack(tc)
	if cs.pending.Len() > cs.maxPending {
		evict = cs.pending.Front().Value.(*trackedConn)
		cs.pending.Remove(evict.elem)
		evict.elem = nil
	}
	cs.mu.Unlock()
	if evict != nil {
		_ = evict.Close()
	}
	return tc
}

// Close forgets c and closes it.
func (c *trackedConn) Close() error {
	err := net.ErrClosed
	c.once.Do(func() {
		cs := c.cs
		cs.mu.Lock()
		c.closed = true
		if c.elem != nil {
			cs.pending.Remove(c.elem)
			c.elem = nil
		}
		for k := range c.keys {
			cs.unbindLocked(k, c)
		}
		cs.mu.Unlock()
		err = c.Conn.Close()
	})
	return err
}

func (cs *conns) unbindLocked(key string, c *trackedConn) {
	delete(c.keys, key)
	if set := cs.byKey[key]; set != nil {
		delete(set, c)
		if len(set) == 0 {
			delete(cs.byKey, key)
		}
	}
}

// trust takes c out of the pending set: it presented a valid credential.
func (cs *conns) trust(c *trackedConn) {
	if c == nil {
		return
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	c.trusted = true
	if c.elem != nil {
		cs.pending.Remove(c.elem)
		c.elem = nil
	}
}

// bind marks c trusted and binds it to key until unbind (or for good once
// hijacked); it returns the unbind.
func (cs *conns) bind(c *trackedConn, key string) func() {
	if c == nil {
		return func() {}
	}
	cs.trust(c)
	if key == "" {
		return func() {}
	}
	cs.mu.Lock()
	if c.closed {
		cs.mu.Unlock()
		return func() {}
	}
	c.keys[key]++
	if cs.byKey[key] == nil {
		cs.byKey[key] = map[*trackedConn]struct{}{}
	}
	cs.byKey[key][c] = struct{}{}
	cs.mu.Unlock()
	return func() {
		cs.mu.Lock()
		defer cs.mu.Unlock()
		if c.hijacked || c.closed || c.keys[key] == 0 {
			return
		}
		if c.keys[key]--; c.keys[key] == 0 {
			cs.unbindLocked(key, c)
		}
	}
}

// hijacked records that a handler took c over: its bindings last as long
// as it does.
func (cs *conns) hijacked(c *trackedConn) {
	if c == nil {
		return
	}
	cs.mu.Lock()
	c.hijacked = true
	cs.mu.Unlock()
}

// drop closes every connection bound to key but except (the one carrying
// the request that revoked it, which closes after its answer).
func (cs *conns) drop(key string, except *trackedConn) {
	cs.mu.Lock()
	var victims []*trackedConn
	for c := range cs.byKey[key] {
		if c != except {
			victims = append(victims, c)
		}
	}
	cs.mu.Unlock()
	for _, c := range victims {
		_ = c.Close()
	}
}

// pendingCount is the number of pending connections.
func (cs *conns) pendingCount() int {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.pending.Len()
}

type connKey struct{}

// connContext puts the tracked connection under c in the connection's
// context (http.Server.ConnContext).
func connContext(ctx context.Context, c net.Conn) context.Context {
	if tc, ok := c.(*tls.Conn); ok {
		c = tc.NetConn()
	}
	if t, ok := c.(*trackedConn); ok {
		return context.WithValue(ctx, connKey{}, t)
	}
	return ctx
}

// connOf is the tracked connection r arrived on; nil when untracked.
func connOf(r *http.Request) *trackedConn {
	c, _ := r.Context().Value(connKey{}).(*trackedConn)
	return c
}

// connState records hijacks (http.Server.ConnState).
func (cs *conns) connState(c net.Conn, st http.ConnState) {
	if st != http.StateHijacked {
		return
	}
	if tc, ok := c.(*tls.Conn); ok {
		c = tc.NetConn()
	}
	if t, ok := c.(*trackedConn); ok {
		cs.hijacked(t)
	}
}

// maxPending is how many unauthenticated connections are kept: a quarter
// of the descriptors, within [16, 1024]. The rest stay for the store,
// the programs and the token holders' connections.
func maxPending() int {
	n := fileLimit() / 4
	if n == 0 || n > 1024 {
		n = 1024
	}
	return max(int(n), 16)
}
