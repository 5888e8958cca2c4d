package hydraverbs

import "context"

// builtin is one verb: its arguments as help shows them (hydra's
// argsHint, which its clients show in completions too) and what it does.
type builtin struct {
	verb, argsHint, description string
	run                         func(v *Verbs, ctx context.Context, session, args string) string
}

// builtins are hydra 0.1.161's verbs, in its order, and help.
var builtins []builtin

func init() {
	builtins = []builtin{
		{verb: "title", argsHint: "[<title>]", run: (*Verbs).title,
			description: "Set this session's title; with no title, have the model write one from the conversation"},
		{verb: "agent", argsHint: "<agent | status>", run: (*Verbs).agent,
			description: "Switch this session to another configured agent, which takes over with the conversation so far"},
		{verb: "workspace", argsHint: "<start | sync | merge | apply | stop | detach | clean | discard | status>", run: (*Verbs).workspace,
			description: "Move this session into an isolated workspace (not available on troupe)"},
		{verb: "kill", run: (*Verbs).kill,
			description: "Close this session once this command's turn ends; its record stays, and the next prompt resumes it"},
		{verb: "restart", run: (*Verbs).restart,
			description: "Restart the agent (troupe's runs inside the daemon: there is no agent process to restart)"},
		{verb: "compact", argsHint: "[status]", run: (*Verbs).compact,
			description: "Summarise the older conversation once this command's turn ends; `status` says when it last was"},
		{verb: "uncompact", run: (*Verbs).uncompact,
			description: "Roll back the last compaction (not available on troupe: a compaction keeps no rollback point)"},
		{verb: "fork", argsHint: "[verbatim]", run: (*Verbs).fork,
			description: "Fork this conversation into a new session, at the last turn that ended"},
		{verb: "config", argsHint: "[<id> [<value>]]", run: (*Verbs).config,
			description: "List this session's config options (mode, model); with <id>, its choices; with <id> <value>, set it"},
		{verb: "help", run: (*Verbs).help,
			description: "List every /hydra verb, the extensions' too, with its arguments"},
	}
}

// Spec is a built-in verb as clients are told of it: `/hydra <Verb>`, its
// arguments (hydra's argsHint) and what it does.
type Spec struct {
	Verb, ArgsHint, Description string
}

// Builtins lists the built-in verbs, in hydra's order (what a client's
// completions and available_commands offer).
func Builtins() []Spec {
	out := make([]Spec, len(builtins))
	for i, b := range builtins {
		out[i] = Spec{Verb: b.verb, ArgsHint: b.argsHint, Description: b.description}
	}
	return out
}

// find is the built-in named verb; nil for none.
func find(verb string) *builtin {
	for i := range builtins {
		if builtins[i].verb == verb {
			return &builtins[i]
		}
	}
	return nil
}
