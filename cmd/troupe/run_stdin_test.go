package main

import (
	"strings"
	"testing"

	"github.com/troupehq/troupe/testkit/llmserver"
)

// `troupe run -` reads the prompt from stdin, as `session prompt ID -`
// does: a prompt past the argument list's 128 KiB goes to the model whole,
// where "-" itself used to.
func TestRunReadsThePromptFromStdin(t *testing.T) {
	srv := llmserver.New(t, llmserver.Script{Model: "tiny", Replies: []llmserver.Reply{llmserver.Steps(llmserver.Text("read it"))}})
	env := []string{"OPENAI_BASE_URL=" + srv.URL() + "/v1", "OPENAI_API_KEY="}
	prompt := "summarise: " + strings.Repeat("line of a long log\n", 10000) // 190 KB
	r := cli(t, env, prompt, "run", "--home", t.TempDir(), "--provider", "openai", "--model", "tiny", "--cwd", t.TempDir(), "-")
	out := r.ok(t, "run -")
	if !strings.Contains(out, "read it") {
		t.Fatalf("stdout %q lacks the answer", out)
	}
	reqs := srv.ChatRequests()
	if len(reqs) != 1 || !strings.Contains(string(reqs[0].Body), "line of a long log\\nline of a long log") || strings.Contains(string(reqs[0].Body), `"content":"-"`) {
		t.Fatalf("the model did not get the prompt from stdin: %d requests, %.300s", len(reqs), reqs[0].Body)
	}
	empty := cli(t, env, "  \n", "run", "--home", t.TempDir(), "--provider", "openai", "--model", "tiny", "-")
	if empty.code != 2 || !strings.Contains(empty.stderr, "empty") {
		t.Fatalf("an empty stdin: exit %d, stderr %q", empty.code, empty.stderr)
	}
}
