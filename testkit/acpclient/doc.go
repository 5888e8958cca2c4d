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
//
// Its surface: dial with the token as a subprotocol entry; Call, Until,
// WaitAnswer, NewSession, Attach, Prompt and AnswerPermission; the frames
// and updates decoded; checks over a run of frames (Chunks, Count,
// RequireIncreasing). Calls run in the test's goroutine; timeouts are the
// caller's (Options.Wait, or the …Within forms). It imports no troupe
// package but transports/jsonrpc's wire types, so transports/acp's own
// tests can use it and what it checks is the wire, not troupe's types.
// `troupe cat` does not use it: production code reads frames as
// transports/jsonrpc.Message.
package acpclient
