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
)

// An MCP client written from the spec (2025-11-25 basic/transports and
// lifecycle), by hand rather than with the SDK, so that what goes over the
// wire is what the test checks: one peer over stdio (troupe mcp), one over
// Streamable HTTP (the daemon's /mcp).

const mcpWait = 30 * time.Second

// mcpMsg is one JSON-RPC message from the server.
type mcpMsg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

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

func initParams(version string) map[string]any {
	return map[string]any{"protocolVersion": version, "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "spec-client", "version": "1"}}
}

// initialize runs the handshake asking for version and returns the
// version the server answered.
func initialize(t testing.TB, p mcpPeer, version string) string {
	t.Helper()
	res, _ := p.call(t, 1, "initialize", initParams(version))
	if res.Error != nil {
		t.Fatalf("initialize %s: %s", version, res.Error.Message)
	}
	var r struct {
		ProtocolVersion string `json:"protocolVersion"`
		Capabilities    struct {
			Tools   *struct{} `json:"tools"`
			Logging *struct{} `json:"logging"`
		} `json:"capabilities"`
		ServerInfo struct{ Name, Version string } `json:"serverInfo"`
	}
	testkit.NoError(t, json.Unmarshal(res.Result, &r))
	if r.Capabilities.Tools == nil || r.Capabilities.Logging == nil || r.ServerInfo.Name != "troupe" {
		t.Fatalf("initialize: %s", res.Result)
	}
	p.notify(t, "notifications/initialized", nil)
	return r.ProtocolVersion
}

// negotiated is what the spec has the server answer to version: the same
// when it supports it, else its newest.
var negotiated = map[string]string{
	"2025-11-25": "2025-11-25", "2025-06-18": "2025-06-18", "2025-03-26": "2025-03-26",
	"2024-11-05": "2025-11-25", "1999-01-01": "2025-11-25",
}

// toolResult is a tools/call result.
type toolResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
}

func callTool(t testing.TB, p mcpPeer, id int, name string, args any, meta map[string]any) (toolResult, []mcpMsg) {
	t.Helper()
	params := map[string]any{"name": name, "arguments": args}
	if meta != nil {
		params["_meta"] = meta
	}
	res, notes := p.call(t, id, "tools/call", params)
	if res.Error != nil {
		t.Fatalf("%s: %s", name, res.Error.Message)
	}
	var r toolResult
	testkit.NoError(t, json.Unmarshal(res.Result, &r))
	if r.IsError || len(r.Content) == 0 || r.Content[0].Type != "text" {
		t.Fatalf("%s: %s", name, res.Result)
	}
	return r, notes
}

// exerciseMCP is the spec client's scenario after the handshake: ping,
// logging/setLevel, tools/list, a session created, prompted with a
// progress token (the reply the LLM streams is want), listed and read
// back, a bridge tool, and an unknown tool refused.
func exerciseMCP(t testing.TB, p mcpPeer, cwd, want string) {
	if res, _ := p.call(t, 2, "ping", nil); res.Error != nil || string(res.Result) != "{}" {
		t.Fatalf("ping: %+v %s", res.Error, res.Result)
	}
	if res, _ := p.call(t, 3, "logging/setLevel", map[string]any{"level": "info"}); res.Error != nil || string(res.Result) != "{}" {
		t.Fatalf("logging/setLevel: %+v %s", res.Error, res.Result)
	}
	res, _ := p.call(t, 4, "tools/list", nil)
	var list struct {
		Tools []struct {
			Name        string `json:"name"`
			Description string `json:"description"`
			InputSchema struct {
				Type string `json:"type"`
			} `json:"inputSchema"`
		} `json:"tools"`
	}
	testkit.NoError(t, json.Unmarshal(res.Result, &list))
	names := map[string]bool{}
	for _, tool := range list.Tools {
		if tool.Description == "" || tool.InputSchema.Type != "object" {
			t.Errorf("tool %s: description %q, input schema type %q", tool.Name, tool.Description, tool.InputSchema.Type)
		}
		names[tool.Name] = true
	}
	for _, n := range []string{"session.list", "session.create", "session.prompt", "session.transcript", "config.list", "model.add", "server.start", "server.stop"} {
		if !names[n] {
			t.Errorf("tools/list has no %s", n)
		}
	}

	created, _ := callTool(t, p, 5, "session.create", map[string]any{"cwd": cwd, "title": "spec"}, nil)
	var sess struct {
		SessionID string `json:"session_id"`
	}
	testkit.NoError(t, json.Unmarshal(created.StructuredContent, &sess))

	answer, notes := callTool(t, p, 6, "session.prompt", map[string]any{"session_id": sess.SessionID, "text": "hi"},
		map[string]any{"progressToken": "tok-6"})
	if answer.Content[0].Text != want {
		t.Errorf("prompt answered %q, want %q", answer.Content[0].Text, want)
	}
	var streamed strings.Builder
	last := 0.0
	for _, n := range notes {
		if n.Method != "notifications/progress" {
			continue
		}
		var pr struct {
			ProgressToken string  `json:"progressToken"`
			Progress      float64 `json:"progress"`
			Message       string  `json:"message"`
		}
		testkit.NoError(t, json.Unmarshal(n.Params, &pr))
		if pr.ProgressToken != "tok-6" || pr.Progress <= last {
			t.Errorf("progress %s after %v: want token tok-6 and a growing progress", n.Params, last)
		}
		last = pr.Progress
		streamed.WriteString(pr.Message)
	}
	if streamed.String() != want {
		t.Errorf("progress messages streamed %q, want %q", streamed.String(), want)
	}

	listed, _ := callTool(t, p, 7, "session.list", map[string]any{}, nil)
	if !strings.Contains(string(listed.StructuredContent), sess.SessionID) {
		t.Errorf("session.list: %s", listed.StructuredContent)
	}
	tr, _ := callTool(t, p, 8, "session.transcript", map[string]any{"session_id": sess.SessionID}, nil)
	if !strings.Contains(tr.Content[0].Text, "## User\n\nhi") || !strings.Contains(tr.Content[0].Text, want) {
		t.Errorf("transcript: %s", tr.Content[0].Text)
	}

	// A bridge tool answers as troupe stdio's does: its JSON as text.
	if cfg, _ := callTool(t, p, 10, "config.list", map[string]any{}, nil); cfg.Content[0].Text != `{"configs":[]}` {
		t.Errorf("config.list: %s", cfg.Content[0].Text)
	}

	res, _ = p.call(t, 9, "tools/call", map[string]any{"name": "no.such", "arguments": map[string]any{}})
	if res.Error == nil || res.Error.Code != -32602 || string(res.ID) != "9" {
		t.Errorf("unknown tool: %+v id %s", res.Error, res.ID)
	}
}
