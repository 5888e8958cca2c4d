package hydraverbs

import (
	"context"
	"strings"
)

// help lists every verb with its arguments: the built-ins, then each
// extension's and transformer's as it registered them.
func (v *Verbs) help(_ context.Context, _, _ string) string {
	var b strings.Builder
	b.WriteString("Hydra commands:\n")
	for _, c := range Builtins() {
		line(&b, "/hydra "+c.Verb, c.ArgsHint, c.Description)
	}
	if v.cfg.Extensions == nil {
		return b.String()
	}
	cmds := v.cfg.Extensions()
	if len(cmds) == 0 {
		return b.String()
	}
	b.WriteString("Extension commands:\n")
	for _, c := range cmds {
		line(&b, "/hydra "+c.Name+" "+c.Verb, c.ArgsHint, c.Description)
	}
	return b.String()
}

// line writes one command: `usage`, then what it does.
func line(b *strings.Builder, head, argsHint, description string) {
	b.WriteString("`")
	b.WriteString(head)
	if argsHint != "" {
		b.WriteString(" " + argsHint)
	}
	b.WriteString("`")
	if description != "" {
		b.WriteString("  " + description)
	}
	b.WriteString("\n")
}
