package rest

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// An internal error's text goes to the log under a ref; the client gets
// the ref and nothing of the text.
func TestInternalKeepsTheErrorInTheLog(t *testing.T) {
	var logged bytes.Buffer
	w := httptest.NewRecorder()
	Internal(w, slog.New(slog.NewTextHandler(&logged, nil)), errors.New("search events: near \"SELECT\": syntax error"), "session", "s-1")
	if w.Code != http.StatusInternalServerError {
		t.Fatalf("status %d", w.Code)
	}
	var body struct{ Error, Ref string }
	if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
		t.Fatal(err)
	}
	if body.Ref == "" || !strings.Contains(body.Error, body.Ref) || strings.Contains(w.Body.String(), "SELECT") {
		t.Fatalf("body %s", w.Body)
	}
	if !strings.Contains(logged.String(), "ref="+body.Ref) || !strings.Contains(logged.String(), "SELECT") || !strings.Contains(logged.String(), "session=s-1") {
		t.Fatalf("log %s", logged.String())
	}
}
