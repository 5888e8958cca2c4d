package hydraverbs

import "context"

// The verbs troupe has no counterpart for answer what they would do and
// why it is not done, as hydra answers a verb its session is not
// configured for: a reply, and the turn ends.

func (v *Verbs) workspace(context.Context, string, string) string {
	return "/hydra workspace: isolated workspaces are not available on troupe; this session works in its own directory."
}

func (v *Verbs) restart(context.Context, string, string) string {
	return "/hydra restart: nothing to restart: troupe's agent runs inside the daemon, and the next prompt uses this session's current settings."
}

func (v *Verbs) uncompact(context.Context, string, string) string {
	return "/hydra uncompact: rollback is not available: a troupe compaction keeps no earlier context to return to."
}
