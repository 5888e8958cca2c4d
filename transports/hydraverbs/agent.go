package hydraverbs

import (
	"cmp"
	"context"

	"github.com/samber/lo"
	"github.com/troupehq/troupe/persistence/event"
)

// builtinAgent is troupe's own engine's agent id.
const builtinAgent = "troupe"

// agent switches the session to another agent (`/hydra agent <id>`): the
// switch is recorded as a settings change (agent, and no upstream
// session yet), so the next prompt starts the new agent in a fresh
// session of its own with a takeover brief of the recorded conversation
// (troupe's own engine needs none: it reads the log). The session's
// transformers hear agent.swap before (phase pre) and after (post) the
// switch is recorded.
func (v *Verbs) agent(ctx context.Context, session, args string) string {
	if args != "" && args != "status" && args != builtinAgent && (v.cfg.AgentKnown == nil || !v.cfg.AgentKnown(args)) {
		return "/hydra agent: no agent `" + args + "` is configured; this session stays on its agent."
	}
	st, err := v.cfg.Sessions.State(ctx, session)
	if err != nil {
		return "/hydra agent: " + err.Error()
	}
	current := cmp.Or(lo.FromPtr(st.Settings.Agent), builtinAgent)
	switch {
	case args == "" || args == "status":
		return "This session's agent is " + current + "; no agent switch is pending (a switch takes effect at the next prompt)."
	case args == current:
		return "/hydra agent: this session already runs on " + current + "."
	}
	previous := lo.FromPtr(st.Settings.UpstreamSessionID)
	v.swapped(session, map[string]any{"phase": "pre", "agentId": current, "previousUpstreamSessionId": previous})
	none := ""
	if _, err := v.cfg.Sessions.SetSettings(ctx, session, event.ForgetAgentModels(event.Settings{Agent: &args, UpstreamSessionID: &none})); err != nil {
		return "/hydra agent: not switched: " + err.Error()
	}
	v.swapped(session, map[string]any{"phase": "post", "agentId": args, "previousAgentId": current, "previousUpstreamSessionId": previous})
	return "Switched this session to " + args + "; it takes over with the conversation so far at the next prompt."
}

func (v *Verbs) swapped(session string, payload map[string]any) {
	if v.cfg.Swapped != nil {
		v.cfg.Swapped(session, payload)
	}
}
