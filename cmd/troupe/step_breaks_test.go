package main

import (
	"testing"

	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// Each step's text is its own paragraph wherever a turn is shown: the
// text before a tool call and the text after it are not run together
// ("…the stream.Stream starts…", issue 25 item 22) in session prompt's
// answer on stdout, where the tool lines between them go to stderr.
// (troupe run's transcript prints the tool lines between them.)
func TestStepsTextIsSeparatedByAParagraph(t *testing.T) {
	steps := func() []llmserver.Reply {
		return []llmserver.Reply{
			llmserver.Steps(llmserver.Text("I will read the stream."), llmserver.ToolCall("c1", "bash", `{"command":"echo hi"}`)),
			llmserver.Steps(llmserver.Text("Stream starts at zero.")),
		}
	}
	const want = "I will read the stream.\n\nStream starts at zero.\n"
	t.Run("session prompt", func(t *testing.T) {
		env, model := llmEnv(t, steps()...)
		home := t.TempDir()
		d := startDaemon(t, home, env, append(model, "--approval-mode", event.ApprovalYolo)...)
		sid := d.create(t, t.TempDir())
		out := cli(t, append(env, "TROUPE_HOME="+home), "", "session", "prompt", sid, "read it").ok(t, "session prompt")
		testkit.Equal(t, out, want)
	})
}
