package rpc

import (
	"encoding/json"
)

// Response is the protocol's answer to one command.
type Response struct {
	ID      json.RawMessage `json:"id,omitempty"`
	Type    string          `json:"type"`
	Command string          `json:"command"`
	Success bool            `json:"success"`
	// Data is left out when nil; JSONNull sends an explicit null.
	Data  json.RawMessage `json:"data,omitempty"`
	Error string          `json:"error,omitempty"`
}

// JSONNull is the data of a response whose answer is null (cycle_model
// with one model, cycle_thinking_level without thinking).
var JSONNull = json.RawMessage("null")

// OK answers cmd successfully; data may be nil (no data field) or any
// value that marshals.
func OK(id json.RawMessage, command string, data any) *Response {
	r := &Response{ID: id, Type: "response", Command: command, Success: true}
	switch d := data.(type) {
	case nil:
	case json.RawMessage:
		r.Data = d
	default:
		b, err := json.Marshal(d)
		if err != nil {
			return Fail(id, command, "marshal response: "+err.Error())
		}
		r.Data = b
	}
	return r
}

// Fail answers cmd with an error.
func Fail(id json.RawMessage, command, msg string) *Response {
	return &Response{ID: id, Type: "response", Command: command, Success: false, Error: msg}
}

func parseError(id json.RawMessage, msg string) *Response {
	return Fail(id, "parse", "Failed to parse command: "+msg)
}
