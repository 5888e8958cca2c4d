package hydraverbs

import (
	"context"
	"strings"
	"testing"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/transports/acp/pipeline"
)

// Which verbs are the built-ins' and which the extensions': a built-in
// wins a name an extension claims too, an extension's name (or its short
// form without "hydra-acp-") goes to the pipeline, any other word is
// answered with the known verbs, and a nil Verbs handles nothing.
func TestRunRoutes(t *testing.T) {
	exts := []pipeline.RegisteredCommand{
		{Name: "hydra-acp-planner", CommandSpec: pipeline.CommandSpec{Verb: "status"}},
		{Name: "agent", CommandSpec: pipeline.CommandSpec{Verb: "x"}},
		{Name: "ext", CommandSpec: pipeline.CommandSpec{Verb: "greet", ArgsHint: "<name>", Description: "says hello"}},
	}
	v := New(Config{Extensions: func() []pipeline.RegisteredCommand { return exts }})
	defer v.Close()
	ctx := context.Background()

	for _, text := range []string{"/hydra planner status", "/hydra hydra-acp-planner status", "/hydra ext greet you", "not a command"} {
		if _, handled := v.Run(ctx, "s", text); handled {
			t.Errorf("%q was handled as a built-in", text)
		}
	}
	reply, handled := v.Run(ctx, "s", "/hydra agent x")
	if !handled || !strings.Contains(reply, "no agent `x` is configured") {
		t.Errorf("/hydra agent: %v %q", handled, reply)
	}
	reply, handled = v.Run(ctx, "s", "/hydra nope")
	if !handled || !strings.Contains(reply, "nope") || !strings.Contains(reply, "fork") || !strings.Contains(reply, "hydra-acp-planner") {
		t.Errorf("/hydra nope: %v %q", handled, reply)
	}
	reply, _ = v.Run(ctx, "s", "/hydra help")
	for _, want := range []string{"`/hydra fork [verbatim]`", "`/hydra ext greet <name>`  says hello", "`/hydra hydra-acp-planner status`"} {
		if !strings.Contains(reply, want) {
			t.Errorf("help lacks %q:\n%s", want, reply)
		}
	}
	testkit.Equal(t, len(Builtins()), len(builtins))

	var none *Verbs
	if _, handled := none.Run(ctx, "s", "/hydra title x"); handled {
		t.Error("a nil Verbs handled a command")
	}
}
