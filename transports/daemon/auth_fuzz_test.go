package daemon

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// FuzzAuthBodies: the auth routes answer any body with the protocol's
// shapes, never a server error, and never authorize a request without the
// token.
func FuzzAuthBodies(f *testing.F) {
	for _, s := range []string{`{"password":"x"}`, `{"password":1}`, `{"ttlSec":-1,"password":"x"}`, `{"id":"tok_1"}`, ``, `{`, `null`, `[]`} {
		f.Add(uint8(0), []byte(s))
		f.Add(uint8(1), []byte(s))
	}
	home := f.TempDir()
	tok, err := ServiceToken(home)
	if err != nil {
		f.Fatal(err)
	}
	a := NewAuth(home, tok)
	mux := http.NewServeMux()
	a.register(mux)
	h := a.wrap(mux)
	f.Fuzz(func(t *testing.T, route uint8, body []byte) {
		path := []string{"/v1/auth/login", "/v1/auth/logout"}[route%2]
		req := httptest.NewRequest("POST", path, strings.NewReader(string(body)))
		req.Header.Set("Authorization", "Bearer "+string(body))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if path == "/v1/auth/logout" && string(body) != tok && rec.Code != http.StatusUnauthorized {
			t.Fatalf("logout with bearer %q: status %d", body, rec.Code)
		}
		if rec.Code >= 500 {
			t.Fatalf("%s %q: status %d", path, body, rec.Code)
		}
		var e map[string]any
		if json.Unmarshal(rec.Body.Bytes(), &e) != nil {
			t.Fatalf("%s %q: body %q is not JSON", path, body, rec.Body)
		}
		if msg, _ := e["error"].(string); rec.Code >= 400 && msg == "" {
			t.Fatalf("%s %q: status %d without error", path, body, rec.Code)
		}
	})
}
