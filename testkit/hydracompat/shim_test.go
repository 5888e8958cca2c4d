//go:build hydracompat

package hydracompat

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// Shim is `hydra-acp acp` driven as an editor drives it: ACP JSON-RPC,
// one message a line, on its stdin and stdout.
type Shim struct {
	h      *H
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	wmu    sync.Mutex
	in     chan map[string]any
	seen   []map[string]any // everything the shim sent, in order
	nextID int
	stderr strings.Builder
	// Permission picks an optionId for a session/request_permission, or
	// "" to cancel it.
	Permission func(params map[string]any) string
	asked      []map[string]any
}

func (h *H) StartShim(args ...string) *Shim {
	h.t.Helper()
	return h.startShimVerb("acp", args...)
}

// startShimVerb runs the shim as verb (acp, or launch <agent>).
func (h *H) startShimVerb(verb string, args ...string) *Shim {
	h.t.Helper()
	s := &Shim{h: h, in: make(chan map[string]any, 1024)}
	s.cmd = exec.Command(h.node, append([]string{h.cli, verb}, args...)...)
	s.cmd.Env, s.cmd.Dir = h.env, h.D.Work
	s.cmd.Stderr = &lockedBuilder{b: &s.stderr}
	var err error
	s.stdin, err = s.cmd.StdinPipe()
	if err != nil {
		h.t.Fatal(err)
	}
	out, err := s.cmd.StdoutPipe()
	if err != nil {
		h.t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(s.Close)
	go s.read(out)
	return s
}

type lockedBuilder struct {
	mu sync.Mutex
	b  *strings.Builder
}

func (l *lockedBuilder) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (s *Shim) read(out io.Reader) {
	defer close(s.in)
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		if _, isReq := m["method"]; isReq && m["id"] != nil {
			s.answer(m)
		}
		s.in <- m
	}
}

// answer answers the shim's requests to the editor.
func (s *Shim) answer(m map[string]any) {
	method, _ := m["method"].(string)
	params, _ := m["params"].(map[string]any)
	switch method {
	case "session/request_permission":
		s.wmu.Lock()
		s.asked = append(s.asked, params)
		s.wmu.Unlock()
		pick := ""
		if s.Permission != nil {
			pick = s.Permission(params)
		}
		if pick == "" {
			s.send(map[string]any{"jsonrpc": "2.0", "id": m["id"], "result": map[string]any{"outcome": map[string]any{"outcome": "cancelled"}}})
			return
		}
		s.send(map[string]any{"jsonrpc": "2.0", "id": m["id"], "result": map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": pick}}})
	default:
		s.send(map[string]any{"jsonrpc": "2.0", "id": m["id"], "error": map[string]any{"code": -32601, "message": "the test editor does not serve " + method}})
	}
}

// AllowOnce picks the first allow option.
func AllowOnce(params map[string]any) string {
	opts, _ := params["options"].([]any)
	for _, o := range opts {
		om, _ := o.(map[string]any)
		if kind, _ := om["kind"].(string); strings.HasPrefix(kind, "allow") {
			id, _ := om["optionId"].(string)
			return id
		}
	}
	return ""
}

func (s *Shim) send(m map[string]any) {
	b, _ := json.Marshal(m)
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.stdin.Write(append(b, '\n')) //nolint:errcheck // a dead shim shows in the wait
}

// Request sends a request and returns its id.
func (s *Shim) Request(method string, params any) int {
	s.nextID++
	s.send(map[string]any{"jsonrpc": "2.0", "id": s.nextID, "method": method, "params": params})
	return s.nextID
}

// Notify sends a notification.
func (s *Shim) Notify(method string, params any) {
	s.send(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

// Wait returns the first message (seen before or arriving within timeout)
// from index from that pred accepts.
func (s *Shim) Wait(from int, timeout time.Duration, pred func(map[string]any) bool) (map[string]any, error) {
	for i := from; i < len(s.seen); i++ {
		if pred(s.seen[i]) {
			return s.seen[i], nil
		}
	}
	deadline := time.After(timeout)
	for {
		select {
		case m, open := <-s.in:
			if !open {
				return nil, fmt.Errorf("the shim exited (stderr: %s)", short(s.Stderr()))
			}
			s.seen = append(s.seen, m)
			if pred(m) {
				return m, nil
			}
		case <-deadline:
			return nil, fmt.Errorf("nothing within %s (the shim sent %d messages, the last %s; stderr: %s)", timeout, len(s.seen), short(s.last()), short(s.Stderr()))
		}
	}
}

func (s *Shim) last() string {
	if len(s.seen) == 0 {
		return "none"
	}
	b, _ := json.Marshal(s.seen[len(s.seen)-1])
	return string(b)
}

// Call sends a request and waits for its answer.
func (s *Shim) Call(method string, params any, timeout time.Duration) (result map[string]any, err error) {
	id := s.Request(method, params)
	m, err := s.Wait(0, timeout, func(m map[string]any) bool { return isResponse(m, id) })
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	if e, isErr := m["error"]; isErr {
		b, _ := json.Marshal(e)
		return nil, fmt.Errorf("%s answered error %s", method, b)
	}
	result, _ = m["result"].(map[string]any)
	return result, nil
}

func isResponse(m map[string]any, id int) bool {
	got, isNum := m["id"].(float64)
	_, hasMethod := m["method"]
	return isNum && int(got) == id && !hasMethod
}

func (s *Shim) Stderr() string {
	lb := s.cmd.Stderr.(*lockedBuilder)
	lb.mu.Lock()
	defer lb.mu.Unlock()
	return s.stderr.String()
}

// Close ends the shim as an editor does: stdin closed, then a kill if it
// lingers.
func (s *Shim) Close() {
	s.wmu.Lock()
	s.stdin.Close()
	s.wmu.Unlock()
	done := make(chan struct{})
	go func() { s.cmd.Wait(); close(done) }() //nolint:errcheck // exit status not asserted
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		s.cmd.Process.Kill()
		<-done
	}
}

// Open initializes and creates a session; it returns the session id.
func (s *Shim) Open() (string, error) {
	if _, err := s.Call("initialize", map[string]any{
		"protocolVersion":    1,
		"clientCapabilities": map[string]any{"fs": map[string]any{"readTextFile": false, "writeTextFile": false}, "terminal": false},
		"clientInfo":         map[string]any{"name": "hydracompat", "version": "1"},
	}, 30*time.Second); err != nil {
		return "", err
	}
	res, err := s.Call("session/new", map[string]any{"cwd": s.h.D.Work, "mcpServers": []any{}}, 30*time.Second)
	if err != nil {
		return "", err
	}
	sid, _ := res["sessionId"].(string)
	if sid == "" {
		return "", fmt.Errorf("session/new answered no sessionId: %v", res)
	}
	return sid, nil
}

// Turn is what one prompt brought back.
type Turn struct {
	StopReason string
	Text       string // agent_message_chunk texts joined
	Chunks     int
	Updates    []map[string]any
}

// Prompt sends a prompt and waits for its answer, collecting the updates.
func (s *Shim) Prompt(sid, text string, timeout time.Duration) (Turn, error) {
	from := len(s.seen)
	id := s.Request("session/prompt", map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": text}}})
	m, err := s.Wait(from, timeout, func(m map[string]any) bool { return isResponse(m, id) })
	if err != nil {
		return Turn{}, fmt.Errorf("session/prompt: %w", err)
	}
	return s.turn(from, m)
}

func (s *Shim) turn(from int, m map[string]any) (Turn, error) {
	var t Turn
	for _, u := range s.seen[from:] {
		if u["method"] != "session/update" {
			continue
		}
		p, _ := u["params"].(map[string]any)
		up, _ := p["update"].(map[string]any)
		t.Updates = append(t.Updates, up)
		if up["sessionUpdate"] == "agent_message_chunk" {
			c, _ := up["content"].(map[string]any)
			txt, _ := c["text"].(string)
			t.Text += txt
			t.Chunks++
		}
	}
	if e, isErr := m["error"]; isErr {
		b, _ := json.Marshal(e)
		return t, fmt.Errorf("session/prompt answered error %s", b)
	}
	res, _ := m["result"].(map[string]any)
	t.StopReason, _ = res["stopReason"].(string)
	return t, nil
}

// ShimSession makes an interactive session the way an editor does and
// runs one prompt in it; it returns the session id.
func (h *H) ShimSession(prompt string) (string, error) {
	s := h.StartShim()
	defer s.Close()
	s.Permission = AllowOnce
	sid, err := s.Open()
	if err != nil {
		return "", err
	}
	t, err := s.Prompt(sid, prompt, 60*time.Second)
	if err != nil {
		return sid, err
	}
	if t.StopReason != "end_turn" {
		return sid, fmt.Errorf("prompt stopped with %q", t.StopReason)
	}
	return sid, nil
}
