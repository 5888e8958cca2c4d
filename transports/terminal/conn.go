package terminal

// Conn is one ACP connection, a JSON-RPC message per WebSocket text
// frame; *websocket.Conn (gorilla) is one.
type Conn interface {
	ReadMessage() (messageType int, p []byte, err error)
	WriteMessage(messageType int, data []byte) error
	Close() error
}

// textMessage is a WebSocket text frame (RFC 6455's opcode 1).
const textMessage = 1
