// Package upstream owns one session's external ACP agent: the program the
// daemon's agent catalogue names for the session's agent id, run as an
// actors/process child and spoken to as an ACP client (github.com/coder/
// acp-go-sdk) over its stdin and stdout.
//
// The agent actor is a child of its session, named "agent", and lives as
// long as the session is hot: it stops (and the program with it) when the
// session passivates. It takes the place of a run for each turn: the
// session sends Turn, the actor prompts the agent and turns every
// session/update into canonical events it asks the session to append
// (run.Emit, with the turn's token), so clients only ever see what the log
// holds. It ends each turn with run.ended and run.Finished, as a run does.
//
// It never picks what to run: the command comes from Config.Launch, which
// the daemon resolves from its own catalogue at each start; the session's
// agent args are appended as arguments. It must not touch the store, the
// fold or any client: everything goes through the session.
package upstream
