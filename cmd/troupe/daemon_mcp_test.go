package main

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// The spec client against the daemon's /mcp: each version's handshake
// (a session each), then the whole scenario with a prompt streamed from
// the scripted LLM as SSE progress events on the call's POST.
func TestDaemonMCPSpecClient(t *testing.T) {
	env, model := llmEnv(t, llmserver.Steps(llmserver.Text("Hello"), llmserver.Delay(50*time.Millisecond), llmserver.Text(", spec.")))
	d := startDaemon(t, t.TempDir(), env, model...)
	for version, want := range negotiated {
		p := &httpPeer{url: d.url, token: d.token}
		if got := initialize(t, p, version); got != want {
			t.Errorf("initialize %s: answered %s, want %s", version, got, want)
		}
	}
	p := &httpPeer{url: d.url, token: d.token}
	p.version = initialize(t, p, "2025-11-25")
	exerciseMCP(t, p, t.TempDir(), "Hello, spec.")
}

// rpcError reads a JSON-RPC error answer with its HTTP status.
func rpcError(t *testing.T, res *http.Response, status int) (code int, id string) {
	t.Helper()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != status {
		t.Fatalf("status %d, want %d: %s", res.StatusCode, status, b)
	}
	var m struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(b, &m); err != nil || m.JSONRPC != "2.0" || m.Error == nil || m.Error.Message == "" {
		t.Fatalf("body %s is not a JSON-RPC error", b)
	}
	return m.Error.Code, string(m.ID)
}

// The transport's rules, status code by status code: sessions
// (Mcp-Session-Id required after initialize, unknown 404, DELETE), the
// protocol version header, Accept, notifications 202, the GET stream,
// bad bodies, and the daemon's Origin, Host and token checks.
func TestDaemonMCPStreamableHTTP(t *testing.T) {
	d := startDaemon(t, t.TempDir(), nil)
	p := &httpPeer{url: d.url, token: d.token}
	p.version = initialize(t, p, "2025-11-25")
	ping := func(id int) []byte { return request(t, id, "ping", nil) }

	// The session works, with and without the version header (missing:
	// 2025-03-26 assumed).
	if res, _ := p.call(t, 2, "ping", nil); string(res.Result) != "{}" {
		t.Fatalf("ping: %s", res.Result)
	}
	if res := p.post(t, ping(3), map[string]string{"MCP-Protocol-Version": ""}); res.StatusCode != http.StatusOK {
		t.Errorf("no MCP-Protocol-Version: status %d", res.StatusCode)
	}
	for _, v := range []string{"2024-11-05", "2099-01-01", "junk"} {
		if _, id := rpcError(t, p.post(t, ping(4), map[string]string{"MCP-Protocol-Version": v}), http.StatusBadRequest); id != "4" {
			t.Errorf("MCP-Protocol-Version %s: id %s", v, id)
		}
	}
	// Mcp-Session-Id is required after initialize; an unknown one is 404.
	if _, id := rpcError(t, p.post(t, ping(5), map[string]string{"Mcp-Session-Id": ""}), http.StatusBadRequest); id != "5" {
		t.Errorf("no Mcp-Session-Id: id %s", id)
	}
	if code, id := rpcError(t, p.post(t, ping(6), map[string]string{"Mcp-Session-Id": "no-such-session"}), http.StatusNotFound); id != "6" || code != -32001 {
		t.Errorf("unknown Mcp-Session-Id: code %d id %s", code, id)
	}
	// Accept must name both types.
	rpcError(t, p.post(t, ping(7), map[string]string{"Accept": "application/json"}), http.StatusBadRequest)
	// Bad bodies: not JSON (id null), not a message (its id echoed).
	if code, id := rpcError(t, p.post(t, []byte(`{"jsonrpc":"2.0","id":8,`), nil), http.StatusBadRequest); code != -32700 || id != "null" {
		t.Errorf("not JSON: code %d id %s", code, id)
	}
	if _, id := rpcError(t, p.post(t, []byte(`{"jsonrpc":"2.0","id":9,"method":9}`), nil), http.StatusBadRequest); id != "9" {
		t.Errorf("not a message: id %s", id)
	}

	// An unknown method is -32601, as over stdio.
	if code, id := rpcError(t, p.post(t, request(t, 11, "no/such", nil), nil), http.StatusBadRequest); code != -32601 || id != "11" {
		t.Errorf("unknown method: code %d id %s", code, id)
	}

	// GET opens the session's SSE stream for server-initiated messages.
	get := func(session string) *http.Response {
		req, err := http.NewRequest(http.MethodGet, d.url+"/mcp", nil)
		testkit.NoError(t, err)
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("Authorization", "Bearer "+d.token)
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("MCP-Protocol-Version", p.version)
		res, err := http.DefaultClient.Do(req)
		testkit.NoError(t, err)
		t.Cleanup(func() { res.Body.Close() })
		return res
	}
	if res := get(p.session); res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		t.Errorf("GET: status %d, type %q", res.StatusCode, res.Header.Get("Content-Type"))
	}

	// DELETE ends the session: its id is unknown afterwards.
	del := func() *http.Response {
		req, err := http.NewRequest(http.MethodDelete, d.url+"/mcp", nil)
		testkit.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+d.token)
		req.Header.Set("Mcp-Session-Id", p.session)
		res, err := http.DefaultClient.Do(req)
		testkit.NoError(t, err)
		res.Body.Close()
		return res
	}
	if res := del(); res.StatusCode != http.StatusNoContent {
		t.Errorf("DELETE: status %d", res.StatusCode)
	}
	rpcError(t, p.post(t, ping(10), nil), http.StatusNotFound)
	rpcError(t, get(p.session), http.StatusNotFound)

	// The daemon's checks come first: a foreign Origin or Host is 403,
	// a missing or wrong token 401; the daemon's own Origin passes.
	fresh := &httpPeer{url: d.url, token: d.token}
	body := request(t, 1, "initialize", initParams("2025-11-25"))
	wantError(t, fresh.post(t, body, map[string]string{"Origin": "http://evil.example"}), http.StatusForbidden)
	wantError(t, fresh.post(t, body, map[string]string{"Authorization": ""}), http.StatusUnauthorized)
	wantError(t, fresh.post(t, body, map[string]string{"Authorization": "Bearer wrong"}), http.StatusUnauthorized)
	req, err := http.NewRequest(http.MethodPost, d.url+"/mcp", strings.NewReader(string(body)))
	testkit.NoError(t, err)
	req.Host = "evil.example"
	req.Header.Set("Authorization", "Bearer "+d.token)
	res, err := http.DefaultClient.Do(req)
	testkit.NoError(t, err)
	wantError(t, res, http.StatusForbidden)
	res.Body.Close()
	if res := fresh.post(t, body, map[string]string{"Origin": d.url}); res.StatusCode != http.StatusOK {
		t.Errorf("the daemon's own origin: status %d", res.StatusCode)
	}
}
