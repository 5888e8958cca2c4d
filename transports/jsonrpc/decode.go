package jsonrpc

import (
	"bytes"
	"encoding/json"
)

// DecodeError is a frame that is not a valid message. ID is the frame's
// id when one could be read (else null), so the error answers it.
type DecodeError struct {
	ID  json.RawMessage
	Err *Error
}

type wire struct {
	JSONRPC *string         `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  *string         `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// Decode parses one frame strictly, as a server must. Every input yields
// a Message or a *DecodeError: invalid JSON is a parse error with id
// null; JSON that is not a JSON-RPC 2.0 message is an invalid request
// with the id when it is readable. Batches are refused.
func Decode(frame []byte) (Message, *DecodeError) {
	trimmed := bytes.TrimSpace(frame)
	if !json.Valid(trimmed) {
		return Message{}, &DecodeError{ID: Null, Err: NewError(CodeParseError, "parse error: not valid JSON")}
	}
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return Message{}, &DecodeError{ID: Null, Err: NewError(CodeInvalidRequest, "invalid request: expected one JSON-RPC object (batches are not supported)")}
	}
	var w wire
	if err := json.Unmarshal(trimmed, &w); err != nil {
		return Message{}, &DecodeError{ID: Null, Err: NewError(CodeInvalidRequest, "invalid request: "+err.Error())}
	}
	id := w.ID
	if id != nil && !validID(id) {
		return Message{}, &DecodeError{ID: Null, Err: NewError(CodeInvalidRequest, "invalid request: id must be a string, a number or null")}
	}
	answerID := id
	if answerID == nil {
		answerID = Null
	}
	fail := func(msg string) (Message, *DecodeError) {
		return Message{}, &DecodeError{ID: answerID, Err: NewError(CodeInvalidRequest, "invalid request: "+msg)}
	}
	if w.JSONRPC == nil || *w.JSONRPC != "2.0" {
		return fail(`jsonrpc must be "2.0"`)
	}
	if w.Method != nil {
		if *w.Method == "" {
			return fail("method must not be empty")
		}
		if IsNull(id) {
			return fail("a request id must not be null")
		}
		if w.Params != nil && !IsNull(w.Params) && w.Params[0] != '{' && w.Params[0] != '[' {
			return fail("params must be an object or an array")
		}
		return Message{ID: id, Method: *w.Method, Params: w.Params}, nil
	}
	if id == nil {
		return fail("a message needs a method, or an id with a result or an error")
	}
	hasResult, hasError := w.Result != nil, w.Error != nil && !IsNull(w.Error)
	if !hasResult && !hasError {
		return fail("a message needs a method (a request), or a result or an error (a response)")
	}
	if hasResult && hasError {
		return fail("a response has exactly one of result and error")
	}
	m := Message{ID: id, Result: w.Result}
	if hasError {
		var e Error
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
