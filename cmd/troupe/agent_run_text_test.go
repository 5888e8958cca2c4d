package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// `troupe agent run` finds its model as `troupe run` does: with no
// backend in agent.yaml and no $OPENAI_BASE_URL, models.yml's provider
// listing the manifest's model (the scripted server sees the calls); in
// text mode its events are said in words on stderr, not as JSON, and
// the answer goes to stdout. With no model configured anywhere, the error
// names every way to configure one, $OPENAI_BASE_URL among them.
func TestAgentRunModelsYAMLAndText(t *testing.T) {
	home := t.TempDir()
	agents := filepath.Join(t.TempDir(), "agents")
	testkit.NoError(t, copyAgents(agents))
	project := t.TempDir()
	testkit.NoError(t, os.WriteFile(filepath.Join(project, "notes.txt"), []byte("alpha TODO beta\n"), 0o644))
	testkit.NoError(t, os.Mkdir(filepath.Join(project, "src"), 0o755))
	env := []string{"TROUPE_HOME=" + home, "OPENAI_BASE_URL=", "OPENAI_API_KEY="}
	args := []string{"agent", "run", "--cwd", project, filepath.Join(agents, "file-search"), "--goal", "find the todos"}

	r := cli(t, env, "", args...)
	testkit.Equal(t, r.code, 2)
	for _, want := range []string{"agent file-search has no model backend", "agent.yaml", filepath.Join(home, "models.yml"), "$OPENAI_BASE_URL"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("no model: stderr lacks %q: %s", want, r.stderr)
		}
	}

	srv := llmserver.New(t, llmserver.Script{Model: "tiny", Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.Text("Let me look."), llmserver.TextToolCall(llmserver.FormatQwen, llmserver.InnerJSON, "list_files", map[string]any{"path": "."})),
		llmserver.Steps(llmserver.Text("notes.txt has a TODO.")),
	}})
	models := "providers:\n  lab:\n    base_url: " + srv.URL() + "/v1\n    models:\n      - id: tiny\n"
	testkit.NoError(t, os.WriteFile(filepath.Join(home, "models.yml"), []byte(models), 0o600))
	r = cli(t, env, "", args...)
	testkit.Equal(t, r.ok(t, "agent run"), "notes.txt has a TODO.\n")
	testkit.Equal(t, len(srv.ChatRequests()), 2)
	for _, want := range []string{"agent file-search started", "agent ready: 3 tools", "turn 1/5", `→ list_files {"path":"."}`,
		" → Listing .", "← list_files notes.txt (+1 line), ", "turn 2/5", "done after 2 turns", "agent file-search finished"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("text mode: stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if strings.Contains(r.stderr, `{"type"`) || strings.Contains(r.stderr, `"tool_count"`) {
		t.Errorf("text mode prints events as JSON:\n%s", r.stderr)
	}
}
