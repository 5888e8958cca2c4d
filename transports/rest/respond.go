package rest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
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

// maxBody bounds a JSON request body; an import's bundle has its own bound.
const maxBody = 1 << 20

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
