package acp

import (
	"bytes"
	"encoding/json"
)

// JSON-RPC and hydra error codes (the spec's table).
const (
	CodeParseError        = -32700
	CodeInvalidRequest    = -32600
	CodeMethodNotFound    = -32601
	CodeInvalidParams     = -32602
	CodeInternal          = -32603
	CodeSessionNotFound   = -32001
	CodeAgentNotInstalled = -32005
	CodePermissionDenied  = -32011
	CodeAlreadyAttached   = -32012
)

// RPCError is a JSON-RPC error object.
type RPCError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

func (e *RPCError) Error() string { return e.Message }

func rpcErr(code int, msg string) *RPCError { return &RPCError{Code: code, Message: msg} }

// Message is one decoded JSON-RPC message: a request (Method and ID), a
// notification (Method, no ID) or a response (ID and Result or Error).
type Message struct {
	ID     json.RawMessage // nil: a notification
	Method string
	Params json.RawMessage
	Result json.RawMessage
	Error  *RPCError
}

// IsRequest reports a request that wants an answer.
func (m Message) IsRequest() bool { return m.Method != "" && m.ID != nil }

// IsResponse reports an answer to a request this side sent.
func (m Message) IsResponse() bool { return m.Method == "" }

// DecodeError is a frame that is not a valid message. ID is the frame's
// id when one could be read (else null), so the error answers it.
type DecodeError struct {
	ID  json.RawMessage
	Err *RPCError
}

var null = json.RawMessage("null")

type wire struct {
	JSONRPC *string         `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  *string         `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// Decode parses one frame. Every input yields a Message or a
// *DecodeError: invalid JSON is a parse error with id null; JSON that is
// not a JSON-RPC 2.0 message is an invalid request with the id when it
// is readable.
func Decode(frame []byte) (Message, *DecodeError) {
	trimmed := bytes.TrimSpace(frame)
	if !json.Valid(trimmed) {
		return Message{}, &DecodeError{ID: null, Err: rpcErr(CodeParseError, "parse error: not valid JSON")}
	}
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return Message{}, &DecodeError{ID: null, Err: rpcErr(CodeInvalidRequest, "invalid request: expected one JSON-RPC object (batches are not supported)")}
	}
	var w wire
	if err := json.Unmarshal(trimmed, &w); err != nil {
		return Message{}, &DecodeError{ID: null, Err: rpcErr(CodeInvalidRequest, "invalid request: "+err.Error())}
	}
	id := w.ID
	if id != nil && !validID(id) {
		return Message{}, &DecodeError{ID: null, Err: rpcErr(CodeInvalidRequest, "invalid request: id must be a string, a number or null")}
	}
	answerID := id
	if answerID == nil {
		answerID = null
	}
	fail := func(msg string) (Message, *DecodeError) {
		return Message{}, &DecodeError{ID: answerID, Err: rpcErr(CodeInvalidRequest, "invalid request: "+msg)}
	}
	if w.JSONRPC == nil || *w.JSONRPC != "2.0" {
		return fail(`jsonrpc must be "2.0"`)
	}
	if w.Method != nil {
		if *w.Method == "" {
			return fail("method must not be empty")
		}
		if isNull(id) {
			return fail("a request id must not be null")
		}
		if w.Params != nil && !isNull(w.Params) && w.Params[0] != '{' && w.Params[0] != '[' {
			return fail("params must be an object or an array")
		}
		return Message{ID: id, Method: *w.Method, Params: w.Params}, nil
	}
	if id == nil {
		return fail("a message needs a method, or an id with a result or an error")
	}
	hasResult, hasError := w.Result != nil, w.Error != nil && !isNull(w.Error)
	if !hasResult && !hasError {
		return fail("a message needs a method (a request), or a result or an error (a response)")
	}
	if hasResult && hasError {
		return fail("a response has exactly one of result and error")
	}
	m := Message{ID: id, Result: w.Result}
	if hasError {
		var e RPCError
		if err := json.Unmarshal(w.Error, &e); err != nil {
			return fail("error must be an object with a code and a message")
		}
		m.Error = &e
	}
	return m, nil
}

func validID(id json.RawMessage) bool {
	switch id[0] {
	case '"', 'n':
		return true
	case '{', '[', 't', 'f':
		return false
	}
	return true // a number
}

func isNull(raw json.RawMessage) bool { return bytes.Equal(raw, null) }

// The outgoing shapes.

type resultMsg struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result"`
}

type errorMsg struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   *RPCError       `json:"error"`
}

type notification struct {
	JSONRPC string `json:"jsonrpc"`
	Method  string `json:"method"`
	Params  any    `json:"params"`
}

type request struct {
	JSONRPC string `json:"jsonrpc"`
	ID      int64  `json:"id"`
	Method  string `json:"method"`
	Params  any    `json:"params"`
}

func newResult(id json.RawMessage, v any) resultMsg {
	return resultMsg{JSONRPC: "2.0", ID: id, Result: v}
}
func newError(id json.RawMessage, e *RPCError) errorMsg {
	return errorMsg{JSONRPC: "2.0", ID: id, Error: e}
}
func newNotification(method string, params any) notification {
	return notification{JSONRPC: "2.0", Method: method, Params: params}
}
