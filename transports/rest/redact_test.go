package rest

import (
	"encoding/json"
	"strings"
	"testing"
)

// Every credential of a session.created's servers is replaced, whatever
// shape its env and headers take, each replacement named; and a copy of
// one in the log is replaced too, the rest of the payload as it was.
func TestRedactionLeavesNoCredential(t *testing.T) {
	servers := json.RawMessage(`[
		{"name":"gh","command":"gh-mcp","args":["--stdio"],"env":[{"name":"GITHUB_TOKEN","value":"ghp_0123456789abcdef"},{"name":"SHORT","value":"1"}]},
		{"name":"mapped","command":"x","env":{"API_KEY":"sk-live-abcdef123456"}},
		{"type":"http","name":"api","url":"https://bob:pa55word-xyz@api.example/mcp?token=tok-query-77777&plain=ok#frag-secret-1","headers":[{"name":"Authorization","value":"Bearer s-1.macmacmacmac"}]},
		{"type":"http","name":"plain","url":"http://127.0.0.1:9/mcp/plain","headers":[]}
	]`)
	var r redaction
	out, err := r.servers(servers, "troupe.created.mcp_servers")
	if err != nil {
		t.Fatal(err)
	}
	secrets := []string{"ghp_0123456789abcdef", "sk-live-abcdef123456", "pa55word-xyz", "tok-query-77777", "frag-secret-1", "s-1.macmacmacmac"}
	for _, s := range secrets {
		if strings.Contains(string(out), s) {
			t.Fatalf("redacted servers carry %q: %s", s, out)
		}
	}
	for _, keep := range []string{`"gh-mcp"`, `"--stdio"`, `"http://127.0.0.1:9/mcp/plain"`, `"GITHUB_TOKEN"`, `api.example/mcp`} {
		if !strings.Contains(string(out), keep) {
			t.Fatalf("redacted servers lost %s: %s", keep, out)
		}
	}
	want := []string{"troupe.created.mcp_servers[0].env.GITHUB_TOKEN", "troupe.created.mcp_servers[0].env.SHORT",
		"troupe.created.mcp_servers[1].env.API_KEY", "troupe.created.mcp_servers[2].headers.Authorization", "troupe.created.mcp_servers[2].url"}
	if strings.Join(r.paths, " ") != strings.Join(want, " ") {
		t.Fatalf("paths %v, want %v", r.paths, want)
	}

	payload := json.RawMessage(`{"server":"api","status":"unavailable","error":"Post \"https://api.example/mcp?token=tok-query-77777\": refused","n":9007199254740993}`)
	got := r.scrub(payload, "troupe.events[3].payload")
	if strings.Contains(string(got), "tok-query-77777") || !strings.Contains(string(got), "9007199254740993") || !strings.Contains(string(got), `"status":"unavailable"`) {
		t.Fatalf("scrubbed payload: %s", got)
	}
	if untouched := json.RawMessage(`{"text":"1 and 1"}`); string(r.scrub(untouched, "x")) != string(untouched) {
		t.Fatal("a short value was scrubbed from the log")
	}
	if r.paths[len(r.paths)-1] != "troupe.events[3].payload" {
		t.Fatalf("the scrub is not named: %v", r.paths)
	}
	if out, _ := r.servers(json.RawMessage(`{"not":"a list"}`), "p"); string(out) != "[]" {
		t.Fatalf("unreadable servers exported as %s", out)
	}
}
