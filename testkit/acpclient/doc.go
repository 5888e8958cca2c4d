// Package acpclient is the test side of ACP over WebSocket: a JSON-RPC
// client on gorilla/websocket written from the protocol (initialize,
// session/new, session/attach, session/prompt and the hydra-acp
// extensions), the frames it reads, and checks over a run of frames.
//
// It imports no troupe package but transports/jsonrpc (the JSON-RPC wire
// types, which import nothing of troupe), so every package's tests can use
// it, transports/acp's own included, without an import cycle, and so what
// it checks is the wire, not troupe's own types. Every call takes or holds
// a testing.TB and fails the test on a transport error.
package acpclient
