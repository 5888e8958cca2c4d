// Package httpjson is the JSON body of every troupe HTTP endpoint: a value
// written with its status, the {"error": msg} shape of a refusal, a 500 that
// keeps its cause in the log behind a ref, and a request body decoded within
// a bound. The REST API, the daemon's own routes, the stdin ring's producer
// routes and the agent-facing MCP servers all answer through it, so they
// agree on the shape without importing one another.
//
// It owns only the encoding of bodies: no routes, no status choices, no
// troupe package.
//
// Its functions: WriteJSON, Error (a {"error"} body), DecodeBody (a
// request body decoded within a bound) and Internal (a 500 whose body is a
// generic message and the ref the error is logged under, never the
// error's text). Its users are REST, the daemon's auth routes, the stdin
// ring's producer routes and the agent-facing and process MCP servers. It
// imports no troupe package, so the ring and the MCP servers need not
// import REST.
package httpjson

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
)

// WriteJSON writes v as the JSON body with status code.
func WriteJSON(w http.ResponseWriter, code int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		code, b = http.StatusInternalServerError, []byte(`{"error":"encode response"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(append(b, '\n'))
}

// Error writes the protocol's error body {"error": msg}.
func Error(w http.ResponseWriter, code int, msg string) {
	WriteJSON(w, code, map[string]string{"error": msg})
}

// Internal answers 500 for a failure that is the daemon's, not the
// request's. Its text (a store's SQL, a path, a driver's wording) is for
// the daemon's log, never the client: the body says only that it failed
// and carries a ref, logged with the error, to find it there.
func Internal(w http.ResponseWriter, log *slog.Logger, err error, attrs ...any) {
	var b [6]byte
	_, _ = rand.Read(b[:])
	ref := hex.EncodeToString(b[:])
	if log == nil {
		log = slog.Default()
	}
	log.Error("request failed", append(attrs, "ref", ref, "error", err)...)
	WriteJSON(w, http.StatusInternalServerError, map[string]string{
		"error": "internal error; the daemon's log has the details (ref " + ref + ")", "ref": ref})
}

// DecodeBody reads r's JSON body into v, at most limit bytes; an empty
// body leaves v as it is when optional. The error is worded for the client.
func DecodeBody(w http.ResponseWriter, r *http.Request, v any, limit int64, optional bool) error {
	body := http.MaxBytesReader(w, r.Body, limit)
	dec := json.NewDecoder(body)
	if err := dec.Decode(v); err != nil {
		if errors.Is(err, io.EOF) && optional {
			return nil
		}
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return fmt.Errorf("request body is larger than %d bytes", limit)
		}
		if errors.Is(err, io.EOF) {
			return errors.New("request body is empty")
		}
		return fmt.Errorf("invalid request body: %v", err)
	}
	if dec.More() {
		return errors.New("invalid request body: more than one JSON value")
	}
	return nil
}
