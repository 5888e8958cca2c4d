package terminal

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// scriptedConn is a daemon that answers nothing: each request the client
// writes is handed to onRequest, which may push frames back.
type scriptedConn struct {
	in        chan []byte
	onRequest func(method string, c *scriptedConn)
	once      sync.Once
}

func newScriptedConn(onRequest func(string, *scriptedConn)) *scriptedConn {
	return &scriptedConn{in: make(chan []byte, 16), onRequest: onRequest}
}

func (s *scriptedConn) ReadMessage() (int, []byte, error) {
	b, ok := <-s.in
	if !ok {
		return 0, nil, errors.New("closed")
	}
	return textMessage, b, nil
}

func (s *scriptedConn) WriteMessage(_ int, data []byte) error {
	var m struct {
		Method string `json:"method"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return err
	}
	s.onRequest(m.Method, s)
	return nil
}

func (s *scriptedConn) Close() error {
	s.once.Do(func() { close(s.in) })
	return nil
}

// Ctrl-C while the daemon is still replaying history, before the attach's
// answer, is the person leaving: Attach says "detached" and returns no
// error (it returned "detached" as an error, and the command exited 1).
func TestAttachInterruptedDuringReplayIsADetach(t *testing.T) {
	interrupts := make(chan os.Signal, 1)
	replayed := make(chan struct{})
	conn := newScriptedConn(func(method string, s *scriptedConn) {
		if method != "session/attach" {
			return
		}
		s.in <- []byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"replayed"}}}}`)
		close(replayed)
	})
	var out bytes.Buffer
	c := NewClient(ClientConfig{Conn: conn, Out: &out, Interrupts: interrupts})
	defer c.Close()
	go func() {
		<-replayed
		interrupts <- syscall.SIGINT
	}()
	if err := c.Attach(context.Background(), AttachOptions{SessionID: "s1", Readonly: true}); err != nil {
		t.Fatalf("Attach: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "detached") {
		t.Fatalf("no detach note in %q", out.String())
	}
}
