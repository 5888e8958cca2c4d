package daemonclient

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// An error status becomes *Error with the protocol's message and the
// whole body (for fields besides error); the bearer token is sent; an
// upgrade the server refuses is an *Error with its status too.
func TestErrorsDecodedAndTokenSent(t *testing.T) {
	var auth []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth = append(auth, r.Header.Get("Authorization"))
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/v1/sessions/import":
			w.WriteHeader(http.StatusConflict)
			_, _ = w.Write([]byte(`{"error":"bundle already imported","existingSessionId":"s-1"}`))
		case "/acp":
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"error":"missing or invalid bearer token"}`))
		default:
			_, _ = w.Write([]byte(`{"ok":true}`))
		}
	}))
	defer srv.Close()
	c := &Client{URL: srv.URL, Token: "tok", http: srv.Client()}
	ctx := context.Background()
	var ok struct{ OK bool }
	if err := c.Do(ctx, http.MethodGet, "/v1/auth/verify", nil, &ok); err != nil || !ok.OK {
		t.Fatalf("verify: %v %+v", err, ok)
	}
	err := c.Do(ctx, http.MethodPost, "/v1/sessions/import", map[string]any{"bundle": 1}, nil)
	e, isErr := err.(*Error)
	if !isErr || e.Status != http.StatusConflict || e.Message != "bundle already imported" || !strings.Contains(string(e.Body), `"existingSessionId":"s-1"`) {
		t.Fatalf("import: %#v", err)
	}
	if !IsStatus(err, http.StatusConflict) || err.Error() != "bundle already imported" {
		t.Fatalf("IsStatus/Error: %v", err)
	}
	_, err = c.DialACP(ctx, "test")
	if !IsStatus(err, http.StatusUnauthorized) || err.Error() != "missing or invalid bearer token" {
		t.Fatalf("refused dial: %v", err)
	}
	for i, a := range auth {
		if a != "Bearer tok" {
			t.Fatalf("request %d sent Authorization %q", i, a)
		}
	}
}

// A dial that reaches nothing says no daemon answers there, naming the fix.
func TestDialWSNoDaemon(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	_, err := (&Client{URL: url, Token: "tok"}).DialWS(context.Background())
	var nr *NotRunningError
	if !errors.As(err, &nr) || !strings.Contains(err.Error(), "no troupe daemon answers at "+url+": start one with `troupe daemon start`") {
		t.Fatalf("dial with nothing listening: %v", err)
	}
}
