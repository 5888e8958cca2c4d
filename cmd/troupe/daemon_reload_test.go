package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// labModels is a models.yml whose provider lab serves model at url.
func labModels(url, model string) string {
	return "default:\n  provider: lab\n  model: " + model + "\nproviders:\n  lab:\n    base_url: " + url + "/v1\n    models:\n      - id: " + model + "\n"
}

// lastChatModel is the model the server's last chat request named.
func lastChatModel(t *testing.T, srv *llmserver.Server, n int) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	reqs, err := srv.WaitChatRequests(ctx, n)
	testkit.NoError(t, err)
	m, _ := reqs[n-1].JSON["model"].(string)
	return m
}

// A running daemon reads models.yml again on SIGHUP and on `troupe daemon
// reload`: new sessions and runs use the new models (the scripted servers
// see which), the log and the command say what reloaded, and a file that
// does not load keeps the old configuration and names the error.
func TestDaemonReloadsModels(t *testing.T) {
	home := t.TempDir()
	first := llmserver.New(t, llmserver.Script{Model: "m1", Replies: []llmserver.Reply{llmserver.Steps(llmserver.Text("from the first"))}})
	second := llmserver.New(t, llmserver.Script{Model: "m2", Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.Text("from the second")), llmserver.Steps(llmserver.Text("again")), llmserver.Steps(llmserver.Text("m3 here"))}})
	models := filepath.Join(home, "models.yml")
	testkit.NoError(t, os.WriteFile(models, []byte(labModels(first.URL(), "m1")), 0o600))
	env := []string{"OPENAI_BASE_URL=", "OPENAI_API_KEY="}
	d := startDaemonBinary(t, home, env)
	env = append(env, "TROUPE_HOME="+home)
	prompt := func(id, text, want string) {
		t.Helper()
		testkit.Equal(t, cli(t, env, "", "session", "prompt", id, text).ok(t, "prompt "+text), want+"\n")
	}
	old := strings.TrimSpace(cli(t, env, "", "session", "new", "--cwd", t.TempDir()).ok(t, "new"))
	prompt(old, "hello", "from the first")
	testkit.Equal(t, lastChatModel(t, first, 1), "m1")

	// SIGHUP: the new file's server and model, for a new session and a
	// new run of the old one; the log says what reloaded.
	testkit.NoError(t, os.WriteFile(models, []byte(labModels(second.URL(), "m2")), 0o600))
	d.proc.Signal(syscall.SIGHUP)
	testkit.Eventually(t, 30*time.Second, "the reload in the log", func() bool {
		return strings.Contains(d.proc.Stderr(), models+" reloaded: 1 models; added lab/m2; removed lab/m1; default lab/m2")
	})
	fresh := strings.TrimSpace(cli(t, env, "", "session", "new", "--cwd", t.TempDir()).ok(t, "new"))
	prompt(fresh, "hello", "from the second")
	testkit.Equal(t, lastChatModel(t, second, 1), "m2")
	prompt(old, "and you?", "again") // lab/m1, unlisted now, resolves on the new base URL
	testkit.Equal(t, lastChatModel(t, second, 2), "m1")

	// A broken file: the command names it and the error, exit 1; the old
	// configuration stays.
	testkit.NoError(t, os.WriteFile(models, []byte("providers: [\n"), 0o600))
	r := cli(t, env, "", "daemon", "reload")
	testkit.Equal(t, r.code, 1)
	if !strings.Contains(r.stderr, "troupe daemon reload: "+models+" not reloaded (the daemon keeps the one it had)") {
		t.Fatalf("reload of a broken models.yml: stdout %q stderr %q", r.stdout, r.stderr)
	}

	// `troupe daemon reload` says what reloaded, config.yml too.
	testkit.NoError(t, os.WriteFile(models, []byte(labModels(second.URL(), "m3")), 0o600))
	out := cli(t, env, "", "daemon", "reload").ok(t, "daemon reload")
	for _, want := range []string{"troupe daemon: " + models + " reloaded: 1 models; added lab/m3; removed lab/m2; default lab/m3",
		"troupe daemon: new sessions: lab/m3", "troupe daemon: " + filepath.Join(home, "config.yml") + ": unchanged"} {
		if !strings.Contains(out, want) {
			t.Errorf("daemon reload's output lacks %q:\n%s", want, out)
		}
	}
	third := strings.TrimSpace(cli(t, env, "", "session", "new", "--cwd", t.TempDir()).ok(t, "new"))
	prompt(third, "hello", "m3 here")
	testkit.Equal(t, lastChatModel(t, second, 3), "m3")
}
