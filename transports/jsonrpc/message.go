package jsonrpc

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Null is the JSON null, the id of an answer to a frame whose id could
// not be read.
var Null = json.RawMessage("null")

// Message is one JSON-RPC message read: a request (Method and ID), a
// notification (Method, no ID) or a response (ID and Result or Error).
// A client may json.Unmarshal a frame into it; a server reads with
// Decode, which also checks the frame is JSON-RPC 2.0.
type Message struct {
	ID     json.RawMessage `json:"id,omitempty"` // nil: a notification
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *Error          `json:"error,omitempty"`
}

// IsRequest reports a request that wants an answer.
func (m Message) IsRequest() bool { return m.Method != "" && m.ID != nil }

// IsResponse reports an answer to a request this side sent.
func (m Message) IsResponse() bool { return m.Method == "" }

// Answers reports m is the answer to the request this side sent with the
// integer id.
func (m Message) Answers(id int) bool {
	return m.Method == "" && string(m.ID) == fmt.Sprint(id)
}

// IsNull reports the raw JSON null.
func IsNull(raw json.RawMessage) bool { return bytes.Equal(raw, Null) }
