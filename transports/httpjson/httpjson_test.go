package httpjson

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

// A refusal is {"error": msg} with its status, as JSON, one line.
func TestErrorShape(t *testing.T) {
	w := httptest.NewRecorder()
	Error(w, http.StatusConflict, `session "s-1" is held`)
	if w.Code != http.StatusConflict || w.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("status %d, content type %q", w.Code, w.Header().Get("Content-Type"))
	}
	if got, want := w.Body.String(), `{"error":"session \"s-1\" is held"}`+"\n"; got != want {
		t.Fatalf("body %q, want %q", got, want)
	}
}

// A value that cannot be encoded is the daemon's failure, answered 500.
func TestWriteJSONUnencodable(t *testing.T) {
	w := httptest.NewRecorder()
	WriteJSON(w, http.StatusOK, map[string]any{"f": func() {}})
	if w.Code != http.StatusInternalServerError || w.Body.String() != `{"error":"encode response"}`+"\n" {
		t.Fatalf("status %d body %q", w.Code, w.Body)
	}
}

func TestDecodeBody(t *testing.T) {
	type req struct{ N int }
	for _, c := range []struct {
		name, body string
		optional   bool
		wantErr    string // "" for none
		wantN      int
	}{
		{"a value", `{"N": 3}`, false, "", 3},
		{"empty, optional", ``, true, "", 7},
		{"empty, required", ``, false, "request body is empty", 7},
		{"over the bound", `{"N": 1234567890}`, false, "request body is larger than 16 bytes", 7},
		{"not JSON", `{N}`, false, "invalid request body: ", 7},
		{"two values", `{"N": 1} {}`, false, "invalid request body: more than one JSON value", 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(c.body))
			v := req{N: 7}
			err := DecodeBody(httptest.NewRecorder(), r, &v, 16, c.optional)
			switch {
			case c.wantErr == "" && err != nil:
				t.Fatalf("error %v", err)
			case c.wantErr != "" && (err == nil || !strings.HasPrefix(err.Error(), c.wantErr)):
				t.Fatalf("error %v, want %q", err, c.wantErr)
			case v.N != c.wantN:
				t.Fatalf("N = %d, want %d", v.N, c.wantN)
			}
		})
	}
}
