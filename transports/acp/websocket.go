package acp

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/gorilla/websocket"
	"github.com/troupehq/troupe/runtime/metrics"
	"github.com/troupehq/troupe/transports/acp/pipeline"
	"github.com/troupehq/troupe/transports/stdio"
)

// Subprotocol is the WebSocket subprotocol echoed when a client offers it.
const Subprotocol = "acp.v1"

// WebSocketConfig is what WebSocketHandler serves with.
type WebSocketConfig struct {
	Config
	// Start runs a connection's actor under the transports supervisor
	// (the runtime's StartTransport).
	Start func(props *actor.Props, name string) error
	// WriteTimeout bounds one frame's write: a client that reads nothing
	// for that long is closed (default 30 s).
	WriteTimeout time.Duration
	// MaxMessage bounds one incoming frame (default 16 MiB).
	MaxMessage int64
	Log        *slog.Logger
	// Peer, when set, names the extension or transformer a request's
	// per-process token belongs to.
	Peer func(*http.Request) (pipeline.Peer, bool)
}

var connections atomic.Int64

// WebSocketHandler serves ACP over WebSocket: one JSON-RPC message per
// text frame (binary frames are ignored), one connection actor per
// socket. Authentication and the Origin check are the caller's, done
// before this handler: it takes any request that reaches it. Of the
// subprotocols offered it echoes acp.v1 alone (never a token entry).
func WebSocketHandler(cfg WebSocketConfig) http.Handler {
	if cfg.WriteTimeout <= 0 {
		cfg.WriteTimeout = 30 * time.Second
	}
	if cfg.MaxMessage <= 0 {
		cfg.MaxMessage = stdio.DefaultMaxLine
	}
	if cfg.Hub == nil {
		cfg.Hub = NewHub()
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.Transport == "" {
		cfg.Transport = "websocket"
	}
	up := websocket.Upgrader{
		Subprotocols: []string{Subprotocol},
		CheckOrigin:  func(*http.Request) bool { return true },
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hj := &hijacker{ResponseWriter: w}
		ws, err := up.Upgrade(hj, r, nil)
		if err != nil {
			return // the upgrader answered the HTTP error
		}
		ws.SetReadLimit(cfg.MaxMessage)
		name := fmt.Sprintf("acp-ws-%d", connections.Add(1))
		var peer pipeline.Peer
		if cfg.Peer != nil {
			peer, _ = cfg.Peer(r)
		}
		if err := cfg.Start(PeerProps(cfg.Config, wsFraming(ws, hj.conn, cfg.WriteTimeout), peer), name); err != nil {
			cfg.Log.Error("acp connection not started", "error", err)
			closeWS(ws, websocket.CloseInternalServerErr, "the server could not start the connection")
		}
	})
}

// wsFraming writes each message as one text frame into bc's batch; the
// batch goes out in one write at Flush.
func wsFraming(ws *websocket.Conn, bc *batchConn, writeTimeout time.Duration) Framing {
	batching := false
	return Framing{
		Write: func(b []byte) error {
			if !batching {
				bc.begin()
				batching = true
			}
			return ws.WriteMessage(websocket.TextMessage, b)
		},
		Flush: func() error {
			batching = false
			return bc.flush(writeTimeout)
		},
		Read: func(root *actor.RootContext, to *actor.PID) {
			// The reader runs as long as the socket is open: the client
			// counts from its start to its end.
			metrics.WebSocketClients.Inc()
			defer metrics.WebSocketClients.Dec()
			for {
				kind, b, err := ws.ReadMessage()
				if err != nil {
					var ce *websocket.CloseError
					if errors.As(err, &ce) || errors.Is(err, websocket.ErrReadLimit) {
						err = nil
					}
					root.Send(to, &stdio.InputEnd{Err: err})
					return
				}
				if kind == websocket.TextMessage {
					root.Send(to, &stdio.Input{Line: b})
				}
			}
		},
		Close: func(reason string) { closeWS(ws, websocket.CloseNormalClosure, reason) },
	}
}

// closeWS says why in a close frame (best effort: a client that stopped
// reading may not take it), then closes the socket, which ends the reader.
func closeWS(ws *websocket.Conn, code int, reason string) {
	if code == websocket.CloseNormalClosure && reason != "the connection is closing" {
		code = websocket.ClosePolicyViolation
	}
	if len(reason) > 120 {
		reason = reason[:120]
	}
	_ = ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, reason), time.Now().Add(time.Second))
	_ = ws.Close()
}
