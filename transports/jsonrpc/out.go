package jsonrpc

import (
	"encoding/json"
	"strconv"
)

// The messages written. Each marshals its fields in this order, the
// order of every golden transcript: jsonrpc, id, then the rest.

// Request asks the peer for an answer.
type Request struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  any             `json:"params"`
}

// Notification wants no answer.
type Notification struct {
	JSONRPC string `json:"jsonrpc"`
	Method  string `json:"method"`
	Params  any    `json:"params"`
}

// Result is a successful answer; result is written even when null.
type Result struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result"`
}

// ErrorAnswer is a failed answer.
type ErrorAnswer struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   *Error          `json:"error"`
}

// NewRequest is a request with id.
func NewRequest(id json.RawMessage, method string, params any) Request {
	return Request{JSONRPC: "2.0", ID: id, Method: method, Params: params}
}

// NewNotification is a notification.
func NewNotification(method string, params any) Notification {
	return Notification{JSONRPC: "2.0", Method: method, Params: params}
}

// NewResult answers id with v.
func NewResult(id json.RawMessage, v any) Result {
	return Result{JSONRPC: "2.0", ID: id, Result: v}
}

// NewErrorAnswer answers id with e; a nil id is written null.
func NewErrorAnswer(id json.RawMessage, e *Error) ErrorAnswer {
	return ErrorAnswer{JSONRPC: "2.0", ID: id, Error: e}
}

// IntID is the raw id of an integer, as a side that numbers its own
// requests writes it.
func IntID(n int64) json.RawMessage { return strconv.AppendInt(nil, n, 10) }
