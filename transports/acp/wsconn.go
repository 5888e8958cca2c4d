package acp

import (
	"bufio"
	"errors"
	"net"
	"net/http"
	"sync"
	"time"
)

// batchConn is the socket under a WebSocket connection. While the writer
// writes a batch, the frames gorilla writes are collected and go out in
// one write at flush; otherwise a write (a pong, the close frame) goes
// straight through. gorilla writes each frame whole, and the socket
// serialises writes, so frames never interleave.
type batchConn struct {
	net.Conn
	mu       sync.Mutex
	batching bool
	buf      []byte
}

// Write collects p while batching, else writes it.
func (c *batchConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.batching {
		c.buf = append(c.buf, p...)
		return len(p), nil
	}
	return c.Conn.Write(p)
}

// SetWriteDeadline is gorilla's per-frame deadline: a batch has its own,
// set at flush.
func (c *batchConn) SetWriteDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.batching {
		return nil
	}
	return c.Conn.SetWriteDeadline(t)
}

// begin starts collecting frames.
func (c *batchConn) begin() {
	c.mu.Lock()
	c.batching = true
	c.mu.Unlock()
}

// flush writes what was collected, within timeout, and stops collecting.
func (c *batchConn) flush(timeout time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.batching = false
	if len(c.buf) == 0 {
		return nil
	}
	b := c.buf
	c.buf = c.buf[:0]
	if cap(c.buf) > 1<<20 {
		c.buf = nil // a burst's buffer is not kept
	}
	if err := c.Conn.SetWriteDeadline(time.Now().Add(timeout)); err != nil {
		return err
	}
	_, err := c.Conn.Write(b)
	return err
}

// hijacker hands the upgrader a batchConn for the hijacked socket.
type hijacker struct {
	http.ResponseWriter
	conn *batchConn
}

func (h *hijacker) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	hj, ok := h.ResponseWriter.(http.Hijacker)
	if !ok {
		return nil, nil, errors.New("websocket: the response cannot be hijacked")
	}
	nc, brw, err := hj.Hijack()
	if err != nil {
		return nil, nil, err
	}
	h.conn = &batchConn{Conn: nc}
	return h.conn, brw, nil
}
