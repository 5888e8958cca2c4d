package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/acpclient"
)

// An MCP client written from the spec (2025-11-25 basic/transports and
// lifecycle), by hand rather than with the SDK, so that what goes over the
// wire is what the test checks: one peer over stdio (troupe mcp), one over
// Streamable HTTP (the daemon's /mcp).

const mcpWait = 30 * time.Second

// mcpMsg is one JSON-RPC message from the server: the same envelope as
// ACP's, so the same type.
type mcpMsg = acpclient.Frame

// mcpPeer is one MCP session on either transport.
type mcpPeer interface {
	// call sends request id and returns its response and the
	// notifications that came before it.
	call(t testing.TB, id int, method string, params any) (mcpMsg, []mcpMsg)
	notify(t testing.TB, method string, params any)
}

func request(t testing.TB, id int, method string, params any) []byte {
	t.Helper()
	m := map[string]any{"jsonrpc": "2.0", "id": id, "method": method}
	if params != nil {
		m["params"] = params
	}
	b, err := json.Marshal(m)
	testkit.NoError(t, err)
	return b
}

func notification(t testing.TB, method string, params any) []byte {
	t.Helper()
	m := map[string]any{"jsonrpc": "2.0", "method": method}
	if params != nil {
		m["params"] = params
	}
	b, err := json.Marshal(m)
	testkit.NoError(t, err)
	return b
}

func decodeMsg(t testing.TB, b []byte) mcpMsg {
	t.Helper()
	var m mcpMsg
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("not a JSON-RPC message: %s: %v", b, err)
	}
	var v struct {
		JSONRPC string `json:"jsonrpc"`
	}
	if json.Unmarshal(b, &v); v.JSONRPC != "2.0" {
		t.Fatalf("message without jsonrpc 2.0: %s", b)
	}
	return m
}

// stdioPeer drives `troupe mcp` through its stdin and stdout.
type stdioPeer struct{ p *testkit.Proc }

func (s stdioPeer) send(t testing.TB, b []byte) {
	t.Helper()
	if _, err := s.p.Stdin.Write(append(b, '\n')); err != nil {
		t.Fatalf("write stdin: %v", err)
	}
}

func (s stdioPeer) call(t testing.TB, id int, method string, params any) (mcpMsg, []mcpMsg) {
	t.Helper()
	s.send(t, request(t, id, method, params))
	var notes []mcpMsg
	for {
		line, ok := s.p.ReadLine(mcpWait)
		if !ok {
			t.Fatalf("%s: no answer to id %d; stderr:\n%s", method, id, s.p.Stderr())
		}
		m := decodeMsg(t, []byte(line))
		if m.Method != "" {
			notes = append(notes, m)
			continue
		}
		if string(m.ID) != fmt.Sprint(id) {
			t.Fatalf("%s: answer %s before the answer to %d", method, line, id)
		}
		return m, notes
	}
}

func (s stdioPeer) notify(t testing.TB, method string, params any) {
	t.Helper()
	s.send(t, notification(t, method, params))
}

// httpPeer is one MCP session on the daemon's /mcp.
type httpPeer struct {
	url, token string
	session    string // Mcp-Session-Id, from the initialize answer
	version    string // MCP-Protocol-Version, once negotiated
}

// post sends one message with the headers the spec asks of a client.
func (h *httpPeer) post(t testing.TB, body []byte, extra map[string]string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, h.url+"/mcp", bytes.NewReader(body))
	testkit.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+h.token)
	if h.session != "" {
		req.Header.Set("Mcp-Session-Id", h.session)
	}
	if h.version != "" {
		req.Header.Set("MCP-Protocol-Version", h.version)
	}
	for k, v := range extra {
		if v == "" {
			req.Header.Del(k)
			continue
		}
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	testkit.NoError(t, err)
	t.Cleanup(func() { res.Body.Close() })
	return res
}

func (h *httpPeer) call(t testing.TB, id int, method string, params any) (mcpMsg, []mcpMsg) {
	t.Helper()
	res := h.post(t, request(t, id, method, params), nil)
	if res.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(res.Body)
		t.Fatalf("%s: status %d: %s", method, res.StatusCode, b)
	}
	if method == "initialize" {
		h.session = res.Header.Get("Mcp-Session-Id")
		if h.session == "" {
			t.Fatalf("initialize: no Mcp-Session-Id")
		}
	}
	msgs := readMessages(t, res)
	var notes []mcpMsg
	for i, m := range msgs {
		if m.Method != "" {
			notes = append(notes, m)
			continue
		}
		if string(m.ID) != fmt.Sprint(id) || i != len(msgs)-1 {
			t.Fatalf("%s: answer to %s where %d's (the last) was due", method, m.ID, id)
		}
		return m, notes
	}
	t.Fatalf("%s: the stream ended without an answer", method)
	return mcpMsg{}, nil
}

// readMessages reads a POST's answer: one JSON object, or an SSE stream
// of messages (events with no data, such as a priming event, carry none).
func readMessages(t testing.TB, res *http.Response) []mcpMsg {
	t.Helper()
	switch ct := res.Header.Get("Content-Type"); {
	case strings.HasPrefix(ct, "application/json"):
		b, err := io.ReadAll(res.Body)
		testkit.NoError(t, err)
		return []mcpMsg{decodeMsg(t, b)}
	case strings.HasPrefix(ct, "text/event-stream"):
	default:
		t.Fatalf("content type %q", ct)
	}
	var out []mcpMsg
	var data strings.Builder
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if data.Len() > 0 {
				out = append(out, decodeMsg(t, []byte(data.String())))
				data.Reset()
			}
		case strings.HasPrefix(line, "data:"):
			if data.Len() > 0 {
				data.WriteByte('\n')
			}
			data.WriteString(strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		}
	}
	if data.Len() > 0 {
		out = append(out, decodeMsg(t, []byte(data.String())))
	}
	return out
}

func (h *httpPeer) notify(t testing.TB, method string, params any) {
	t.Helper()
	res := h.post(t, notification(t, method, params), nil)
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusAccepted || len(b) != 0 {
		t.Fatalf("%s: status %d body %q, want 202 and no body", method, res.StatusCode, b)
	}
}
