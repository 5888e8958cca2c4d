package hydraverbs

import (
	"context"

	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/persistence/event"
)

// fork forks the conversation at the last turn that ended before this
// command's (the command's own turn is not the fork's), keeping the
// session's title, directory and settings, and answers with a link
// hydra's clients open (hydra://sessions/<id>). troupe has no synopsis
// brief: hydra's synthesis fork is the verbatim one here.
func (v *Verbs) fork(ctx context.Context, session, args string) string {
	switch args {
	case "", "verbatim", "synthesis":
	default:
		return "/hydra fork: unknown argument `" + args + "`; use `/hydra fork` or `/hydra fork verbatim`."
	}
	st, err := v.cfg.Sessions.State(ctx, session)
	if err != nil {
		return "Fork failed: " + err.Error()
	}
	seq, entry, err := v.lastTurn(ctx, session)
	if err != nil {
		return "Fork failed: " + err.Error()
	}
	set := st.Settings
	set.Title = nil
	id, err := v.cfg.Sessions.Fork(ctx, sessions.ForkRequest{Parent: session, Seq: seq, Entry: entry,
		Session: event.CreatedPayload{Cwd: st.Cwd, Title: st.Title, Settings: set, OriginTransport: "command"}})
	if err != nil {
		return "Fork failed: " + err.Error()
	}
	return "Forked as [`" + id + "`](hydra://sessions/" + id + ")."
}

// lastTurn is the end of session's last run that ended, and its prompt's
// message id; a session with none forks at its start.
func (v *Verbs) lastTurn(ctx context.Context, session string) (int64, string, error) {
	seq, entry := int64(1), ""
	err := v.cfg.Sessions.LoadKind(ctx, session, event.RunEnded, func(e event.Event) error {
		var p event.RunEndedPayload
		if e.Decode(&p) == nil {
			seq, entry = e.Seq, p.RunID
		}
		return nil
	})
	return seq, entry, err
}
