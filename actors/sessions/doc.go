// Package sessions owns the sessions supervisor and the session facade.
//
// The supervisor is the parent of every live session actor: it routes
// client requests by session id, resurrects cold sessions on first use,
// passivates idle ones, and restarts failed ones with exponential backoff
// until too many failures in a window stop the session and mark it failed
// in the store. It must not read or fold session logs (each session does
// that itself) and holds no session state beyond which actors are alive.
//
// The facade, [Client], is everything a client of sessions needs: typed
// requests and replies (Prompt, Cancel, Decide, SetSettings, Compact, the
// queue edits, Fork, Subscribe, …) with sentinel errors, blocking or from
// inside an actor ([Async]), the store reads a protocol needs, a user's
// own shell commands, and the model catalog interface ([Models]). A
// transport imports this package and persistence/event, never the engine's
// actors (queue, turn, tool calls) or the store; transports/imports_test.go
// keeps it so.
//
// The facade's operations beyond a session's requests: RunBash (a user's
// own shell command), Kill (stop the actor: the session goes cold), Delete
// (kill, then persistence.Store.Delete), Import (a whole log sealed by
// session.SealImport, then persistence.Store.Import: one transaction) and
// AwaitingInput (the protocols' awaitingInput: any attention flag or open
// permission request, folded from the log's few kinds, live or cold,
// whoever is attached). The supervisor also marks a session failed in the
// store. This facade is the only way a transport reaches sessions.
package sessions
