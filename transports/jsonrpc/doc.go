// Package jsonrpc owns the JSON-RPC 2.0 wire types every JSON-RPC
// speaker in troupe uses: the ACP connection (transports/acp), the
// daemon's ACP clients (transports/daemonclient, transports/terminal,
// troupe cat), the MCP line and HTTP connections' own error answers
// (transports/mcp) and the test clients and plugins (testkit).
//
// A message's id is kept as raw JSON so an answer echoes the request's
// id byte for byte, whatever its type. Message is what is read (strictly
// by Decode on a server, leniently by json.Unmarshal on a client);
// Request, Notification, Result and ErrorAnswer are what is written, and
// marshal in the field order the golden transcripts pin.
//
// It owns no connection, no method table and no protocol's own error
// codes (ACP's -320xx live in transports/acp). MCP messages the official
// Go SDK reads and writes stay the SDK's types.
//
// It imports nothing of troupe, so clients and tests can use it without
// the runtime.
package jsonrpc
