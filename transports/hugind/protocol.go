package hugind

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// SchemaVersion is written on every line.
const SchemaVersion = "1"

// Error codes.
const (
	CodeInvalidJSON    = "invalid_json"
	CodeInvalidRequest = "invalid_request"
	CodeInternal       = "internal_error"
)

// UnknownID is the id of an answer to a line whose id could not be read.
const UnknownID = "unknown"

// Request is one decoded request line.
type Request struct {
	ID     string
	Method string
	Params json.RawMessage // always a JSON object
}

// Response is one answer line.
type Response struct {
	ID            string `json:"id"`
	OK            bool   `json:"ok"`
	Result        any    `json:"result,omitempty"`
	Error         *Error `json:"error,omitempty"`
	SchemaVersion string `json:"schema_version"`
}

// Error is a failed request's error.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Event is one event line.
type Event struct {
	Event         string `json:"event"`
	ID            string `json:"id"`
	Data          any    `json:"data"`
	SchemaVersion string `json:"schema_version"`
}

func failure(id, code, format string, args ...any) *Response {
	return &Response{ID: id, Error: &Error{Code: code, Message: fmt.Sprintf(format, args...)}, SchemaVersion: SchemaVersion}
}

func success(id string, result any) *Response {
	return &Response{ID: id, OK: true, Result: result, SchemaVersion: SchemaVersion}
}

// Decode reads one line as a request, or returns the error response the
// line gets instead.
func Decode(line []byte) (Request, *Response) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(line, &fields); err != nil {
		var v any
		if json.Unmarshal(line, &v) == nil {
			return Request{}, failure(UnknownID, CodeInvalidRequest, "a request is a JSON object, not %s", kind(line))
		}
		return Request{}, failure(UnknownID, CodeInvalidJSON, "invalid JSON: %v", err)
	}
	if fields == nil {
		return Request{}, failure(UnknownID, CodeInvalidRequest, "a request is a JSON object, not null")
	}
	var r Request
	if err := json.Unmarshal(fields["id"], &r.ID); err != nil || r.ID == "" {
		return Request{}, failure(UnknownID, CodeInvalidRequest, "id must be a non-empty string")
	}
	if err := json.Unmarshal(fields["method"], &r.Method); err != nil || r.Method == "" {
		return Request{}, failure(r.ID, CodeInvalidRequest, "method must be a non-empty string")
	}
	p := bytes.TrimSpace(fields["params"])
	switch {
	case len(p) == 0 || bytes.Equal(p, []byte("null")):
		r.Params = json.RawMessage("{}")
	case p[0] == '{':
		r.Params = json.RawMessage(p)
	default:
		return Request{}, failure(r.ID, CodeInvalidRequest, "params must be an object, not %s", kind(p))
	}
	return r, nil
}

func kind(b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return "nothing"
	}
	switch b[0] {
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}
