package terminal

import (
	"encoding/json"

	"github.com/troupehq/troupe/transports/daemonclient"
)

// Conn is one ACP connection, a JSON-RPC message per WebSocket text
// frame; *websocket.Conn (gorilla) is one.
type Conn interface {
	ReadMessage() (messageType int, p []byte, err error)
	WriteMessage(messageType int, data []byte) error
	Close() error
}

// textMessage is a WebSocket text frame (RFC 6455's opcode 1).
const textMessage = 1

// RPCError is an error answer from the daemon: daemonclient's, so a
// caller tells errors apart one way whichever client it used.
type RPCError = daemonclient.RPCError

// The codes a client reads.
const (
	CodeMethodNotFound  = -32601
	CodeInvalidParams   = -32602
	CodeSessionNotFound = daemonclient.CodeSessionNotFound
)

// frame is one JSON-RPC message from the daemon.
type frame = daemonclient.Frame

type outFrame struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  any             `json:"params,omitempty"`
	Result  any             `json:"result,omitempty"`
	Error   *RPCError       `json:"error,omitempty"`
}
