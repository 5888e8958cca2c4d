package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/troupehq/troupe/runtime/modelconfig"
	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// troupe init writes the commented models.yml into the home, private, and
// never over an existing one; the file it writes is one troupe loads: its
// local provider answers (at the scripted server's address) with no flag
// but --provider (issue 25, item 23).
func TestInitWritesACommentedModelsYML(t *testing.T) {
	home := t.TempDir()
	env := []string{"TROUPE_HOME=" + home, "OPENAI_BASE_URL=", "OPENAI_API_KEY="}
	path := filepath.Join(home, "models.yml")

	out := cli(t, env, "", "init").ok(t, "init")
	if !strings.HasPrefix(out, "wrote "+path+": ") {
		t.Fatalf("init printed %q", out)
	}
	b, err := os.ReadFile(path)
	testkit.NoError(t, err)
	testkit.Equal(t, string(b), string(modelconfig.Template))
	fi, err := os.Stat(path)
	testkit.NoError(t, err)
	testkit.Equal(t, fi.Mode().Perm(), os.FileMode(0o600))

	srv := llmserver.New(t, llmserver.Script{Model: "local-model", Replies: []llmserver.Reply{llmserver.Steps(llmserver.Text("from the local model"))}})
	run := cli(t, env, "", "run", "--provider", "local", "--base-url", srv.URL()+"/v1", "hello")
	if run.code != 0 || !strings.Contains(run.stdout, "from the local model") {
		t.Fatalf("run on the template's provider: exit %d\n%s\n%s", run.code, run.stdout, run.stderr)
	}

	mine := "# my own\nproviders: {}\n"
	testkit.NoError(t, os.WriteFile(path, []byte(mine), 0o600))
	testkit.Equal(t, cli(t, env, "", "init").ok(t, "second init"), path+" exists; left as it is\n")
	b, err = os.ReadFile(path)
	testkit.NoError(t, err)
	testkit.Equal(t, string(b), mine)
}
