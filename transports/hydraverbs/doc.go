// Package hydraverbs serves Hydra's built-in slash commands, the
// `/hydra <verb> [args]` a client types in a session's composer (the TUI's
// /rename sends `/hydra title X`): title, help, fork, kill, compact,
// config, and a clear answer for those troupe cannot serve (agent,
// workspace, restart, uncompact). A command is queued and run as a
// prompt is; the daemon's engine answers its run with Run instead of
// asking the model, so the reply shows as the turn's agent message.
//
// It owns the built-ins' grammar and their effects through the session
// facade (actors/sessions), and the goroutines that wait for a command's
// own run to end before acting on its session (a kill, a compaction).
// It must not dispatch the extensions' verbs (`/hydra <name> <verb>`):
// transports/acp/pipeline does, and the built-ins win a name both claim.
package hydraverbs
