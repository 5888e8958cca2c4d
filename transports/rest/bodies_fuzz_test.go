package rest

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/troupehq/troupe/actors"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/testkit"
)

// bodyRoutes are the routes that read a JSON body; S is an existing session.
var bodyRoutes = []struct{ method, path string }{
	{"POST", "/v1/sessions"},
	{"PATCH", "/v1/sessions/S"},
	{"POST", "/v1/sessions/search"},
	{"POST", "/v1/sessions/S/fork"},
	{"POST", "/v1/sessions/import"},
}

// FuzzBodies: whatever body any route gets, the answer is never a server
// error, every refusal is the protocol's {"error": "..."}, and a success
// is JSON (or empty, 204).
func FuzzBodies(f *testing.F) {
	for _, s := range []string{
		`{"cwd":"/tmp"}`, `{"cwd":"rel"}`, `{"agentId":"x"}`, `{"mcpServers":[{}]}`, `{"model":"nope"}`,
		`{"title":"t"}`, `{"regen":true}`, `{"title":""}`, `{"q":"x"}`, `{"q":"x","sessionIds":[]}`,
		`{"forkAt":""}`, `{"cwd":""}`, `{"bundle":{}}`, `{"bundle":{"version":1,"session":{"sessionId":"a","lineageId":"l"}}}`,
		`{"bundle":{"version":1,"session":{"sessionId":"a","lineageId":"l2","cwd":"/"},"history":[{"method":"session/update","params":{"update":{"sessionUpdate":"user_message_chunk","content":{"type":"text","text":"hi"}}},"recordedAt":1}]}}`,
		`{"bundle":{"version":1,"session":{"sessionId":"a","lineageId":"l3"},"troupe":{"created":{},"events":[{"kind":"session.created","payload":{}}]}}}`,
		``, `null`, `[]`, `{`, `{} {}`, `"x"`, `{"title":null}`, `{"q":1}`,
	} {
		for i := range bodyRoutes {
			f.Add(uint8(i), []byte(s))
		}
	}
	rt := testkit.Boot(f, actors.Options{})
	api := New(Config{Sessions: rt.Sessions, Version: "test", DefaultCwd: f.TempDir(), Log: testkit.TestLogger(f)})
	mux := http.NewServeMux()
	api.Register(mux)
	const id = "s-fuzz"
	if err := rt.Sessions.Create(context.Background(), id, event.CreatedPayload{Cwd: f.TempDir()}); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, route uint8, body []byte) {
		r := bodyRoutes[int(route)%len(bodyRoutes)]
		req := httptest.NewRequest(r.method, strings.Replace(r.path, "S", id, 1), strings.NewReader(string(body)))
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, req)
		checkAnswer(t, r.method+" "+r.path, body, rec)
	})
}

func checkAnswer(t *testing.T, what string, body []byte, rec *httptest.ResponseRecorder) {
	t.Helper()
	switch {
	case rec.Code >= 500:
		t.Fatalf("%s %q: status %d %s", what, body, rec.Code, rec.Body)
	case rec.Code >= 400:
		var e struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(rec.Body.Bytes(), &e) != nil || e.Error == "" {
			t.Fatalf("%s %q: status %d with body %q", what, body, rec.Code, rec.Body)
		}
	case rec.Code == http.StatusNoContent:
		if rec.Body.Len() != 0 {
			t.Fatalf("%s %q: 204 with a body", what, body)
		}
	default:
		if !json.Valid(rec.Body.Bytes()) {
			t.Fatalf("%s %q: status %d with invalid JSON %q", what, body, rec.Code, rec.Body)
		}
	}
}

// FuzzEventFilter: any query is either accepted with known kinds only or
// refused in words.
func FuzzEventFilter(f *testing.F) {
	for _, s := range []string{"kinds=tool_call", "kinds=tool_call,turn_complete&since=2026-01-01T00:00:00Z", "kinds=x", "", "since=now", "kinds=%zz"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, query string) {
		req := httptest.NewRequest("GET", "/v1/sessions/events", nil)
		req.URL.RawQuery = query
		filter, err := parseEventFilter(req)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			return
		}
		if len(filter.kinds) == 0 {
			t.Fatalf("%q accepted with no kinds", query)
		}
		for k := range filter.kinds {
			if !strings.Contains(strings.Join(queryable, ","), k) {
				t.Fatalf("%q accepted kind %q", query, k)
			}
		}
	})
}
