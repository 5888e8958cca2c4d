package mcp

import (
	"github.com/troupehq/troupe/runtime/tools"
)

// GetTools asks for the server's tools; the reply (via Respond) is
// *ToolsReply. A request made while the actor is still connecting is
// answered once it has connected or failed.
type GetTools struct{}

// ToolsReply answers GetTools. Err, which names the server, is set when the
// server could not be reached, its tools could not be listed, or the
// connection has since ended; Tools is then empty.
type ToolsReply struct {
	Server string // ServerConfig.Name
	Tools  []tools.Tool
	Err    error
}

// getConn is how a tool reaches the current connection: the reply is
// *connReply, sent once the actor is connected or has failed.
type getConn struct{}

type connReply struct {
	conn *conn
	err  error
}

// connectDone reports the connect goroutine's outcome. conn identifies the
// incarnation that started it: a restarted actor has the same PID, and
// ignores news about its predecessor's connection.
type connectDone struct {
	conn  *conn
	tools []tools.Tool
	err   error
}

// connLost reports that the server ended the connection (a stdio server
// exited, say) while the actor still owned it.
type connLost struct {
	conn *conn
	err  error
}

// Status is sent to the actor's parent (or the PID given WithNotify) when
// the server's state changes in a way the session reports once: it never
// came up (event.MCPStatusUnavailable, sent once), its connection dropped
// (event.MCPStatusLost), or it is up again (event.MCPStatusConnected).
// Failed reconnect attempts send nothing.
type Status struct {
	Server string
	Status string // an event.MCPStatus* value
	Err    error  // why, for unavailable and lost
	Tools  int    // how many tools it offers, for connected
}

// retry is the backoff timer firing; gen tells a stale timer apart.
type retry struct{ gen int }

// toolsChanged reports the server's notifications/tools/list_changed.
type toolsChanged struct{ conn *conn }

// toolsListed is a re-list's outcome, for the change generation gen.
type toolsListed struct {
	conn  *conn
	gen   uint64
	tools []tools.Tool
	err   error
}
