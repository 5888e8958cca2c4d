package hydraverbs

import "context"

// title sets the session's title (session.settings_changed, which every
// attached client is shown as session_info_update); with none, the model
// writes one in the background. Either way the turn ends with no reply,
// as hydra's does.
func (v *Verbs) title(ctx context.Context, session, args string) string {
	if args != "" {
		if _, err := v.cfg.Sessions.SetTitle(ctx, session, args); err != nil {
			return "/hydra title: the title was not set: " + err.Error()
		}
		return ""
	}
	if v.cfg.Regen == nil {
		return "/hydra title: no model to write a title with; name one: /hydra title <title>"
	}
	if err := v.cfg.Regen(ctx, session); err != nil {
		return "/hydra title: no title will be written: " + err.Error()
	}
	return ""
}
