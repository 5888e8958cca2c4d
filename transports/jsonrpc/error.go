package jsonrpc

import "encoding/json"

// JSON-RPC 2.0's own error codes (the specification's table).
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternal       = -32603
)

// Error is a JSON-RPC error object. Data is raw JSON so a reader keeps it
// exactly as it came.
type Error struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *Error) Error() string { return e.Message }

// NewError is an error object without data.
func NewError(code int, msg string) *Error { return &Error{Code: code, Message: msg} }

// NewErrorData is an error object whose data is v marshalled; v that does
// not marshal leaves data out (the code and message still say what failed).
func NewErrorData(code int, msg string, v any) *Error {
	b, err := json.Marshal(v)
	if err != nil {
		b = nil
	}
	return &Error{Code: code, Message: msg, Data: b}
}
