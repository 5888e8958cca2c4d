package hydraverbs

import "context"

// kill closes the session once the command's turn has ended: it goes cold
// (its record stays; the next prompt resumes it) and every attached
// client is told (hydra-acp/session/closed), as hydra's kill does.
func (v *Verbs) kill(ctx context.Context, session, _ string) string {
	from, err := v.next(ctx, session)
	if err != nil {
		return "/hydra kill: the session was not closed: " + err.Error()
	}
	v.afterRun(session, from, "kill", func(ctx context.Context) error {
		if v.cfg.Closing != nil {
			v.cfg.Closing(session)
		}
		return v.cfg.Sessions.Kill(ctx, session)
	})
	return ""
}
