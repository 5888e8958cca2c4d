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

// noProviderEnv clears every variable troupe init reads for a provider, so
// a test's findings are its own.
var noProviderEnv = []string{"OPENAI_BASE_URL=", "OPENAI_API_KEY=", "ANTHROPIC_API_KEY=", "GEMINI_API_KEY=", "GOOGLE_API_KEY=",
	"AWS_REGION=", "AWS_PROFILE=", "AWS_ACCESS_KEY_ID=", "AWS_SECRET_ACCESS_KEY="}

// troupe init on an empty home with only OPENAI_BASE_URL set writes that
// server as the default provider with the models it lists, and troupe run
// then answers with no model flag, also once the variable is gone: the
// file carries the endpoint (issue 27, first run).
func TestInitFromOpenAIBaseURLGivesAWorkingRun(t *testing.T) {
	home := t.TempDir()
	srv := llmserver.New(t, llmserver.Script{Model: "tiny-coder", Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.Text("first answer")), llmserver.Steps(llmserver.Text("second answer"))}})
	env := append(append([]string{}, noProviderEnv...), "TROUPE_HOME="+home, "OPENAI_BASE_URL="+srv.URL()+"/v1")

	out := cli(t, env, "", "init").ok(t, "init")
	path := filepath.Join(home, "models.yml")
	for _, want := range []string{"wrote " + path + " from what was found:", "provider endpoint, models tiny-coder"} {
		if !strings.Contains(out, want) {
			t.Fatalf("init printed no %q:\n%s", want, out)
		}
	}
	cfg, err := modelconfig.Load(path)
	testkit.NoError(t, err)
	testkit.Equal(t, cfg.Default.Provider, "endpoint")
	testkit.Equal(t, cfg.Default.Model, "tiny-coder")

	run := cli(t, env, "", "run", "hello")
	if run.code != 0 || !strings.Contains(run.stdout, "first answer") {
		t.Fatalf("run after init: exit %d\n%s\n%s", run.code, run.stdout, run.stderr)
	}
	gone := append(env, "OPENAI_BASE_URL=")
	run = cli(t, gone, "", "run", "hello again")
	if run.code != 0 || !strings.Contains(run.stdout, "second answer") {
		t.Fatalf("run after init, OPENAI_BASE_URL unset: exit %d\n%s\n%s", run.code, run.stdout, run.stderr)
	}
}

// Provider keys in the environment become commented entries under the
// names the native providers take (anthropic, google, openai, bedrock),
// the home's llama configs a comment naming them; the file loads as it is
// written, and none of them is the default.
func TestInitFindsProviderKeysAndLlamaConfigs(t *testing.T) {
	home := llamaHome(t, []string{"qwen", "gemma"})
	env := append(append([]string{}, noProviderEnv...), "TROUPE_HOME="+home,
		"ANTHROPIC_API_KEY=sk-ant-test", "GOOGLE_API_KEY=g-test", "OPENAI_API_KEY=sk-test",
		"AWS_REGION=eu-west-1", "AWS_ACCESS_KEY_ID=AKIATEST", "AWS_SECRET_ACCESS_KEY=secret")
	out := cli(t, env, "", "init").ok(t, "init")
	for _, want := range []string{"llama configs: gemma, qwen", "ANTHROPIC_API_KEY credentials: provider anthropic",
		"GOOGLE_API_KEY credentials: provider google", "OPENAI_API_KEY credentials: provider openai", "AWS credentials: provider bedrock"} {
		if !strings.Contains(out, want) {
			t.Fatalf("init printed no %q:\n%s", want, out)
		}
	}
	b, err := os.ReadFile(filepath.Join(home, "models.yml"))
	testkit.NoError(t, err)
	text := string(b)
	for _, want := range []string{"  # anthropic:\n  #   api: anthropic\n  #   api_key_env: ANTHROPIC_API_KEY\n",
		"  # google:\n  #   api: google\n  #   api_key_env: GOOGLE_API_KEY\n",
		"  # openai:\n  #   api: openai\n  #   api_key_env: OPENAI_API_KEY\n",
		"  # bedrock:\n  #   api: bedrock\n  #   region: \"eu-west-1\"\n",
		"--provider llama --model NAME\n  # (troupe starts the server itself): gemma, qwen\n"} {
		if !strings.Contains(text, want) {
			t.Fatalf("models.yml has no %q:\n%s", want, text)
		}
	}
	for _, secret := range []string{"sk-ant-test", "g-test", "sk-test", "AKIATEST", "secret\n"} {
		if strings.Contains(text, secret) {
			t.Fatalf("models.yml holds the credential %q:\n%s", secret, text)
		}
	}
	cfg, err := modelconfig.Load(filepath.Join(home, "models.yml"))
	testkit.NoError(t, err)
	testkit.Equal(t, cfg.Default.Provider, "")
}

// A first troupe run in a home with no models.yml and no provider in the
// environment ends with a hint naming troupe init; once a models.yml is
// there, the hint is not repeated.
func TestRunHintsAtInitOnFirstUse(t *testing.T) {
	home := t.TempDir()
	env := append(append([]string{}, noProviderEnv...), "TROUPE_HOME="+home)
	r := cli(t, env, "", "run", "hello")
	if r.code == 0 || !strings.Contains(r.stderr, "hint: "+home+" has no models.yml yet: `troupe init` writes one") {
		t.Fatalf("first run: exit %d\n%s", r.code, r.stderr)
	}
	testkit.NoError(t, os.WriteFile(filepath.Join(home, "models.yml"), []byte("providers: {}\n"), 0o600))
	r = cli(t, env, "", "run", "hello")
	if r.code == 0 || strings.Contains(r.stderr, "hint:") {
		t.Fatalf("run with a models.yml: exit %d\n%s", r.code, r.stderr)
	}
}

// A daemon started on a home with no models.yml and no model from flags
// or the environment says so once on stderr, naming troupe init; given
// an OpenAI-compatible server in the environment it says nothing.
func TestDaemonHintsAtInitOnFirstUse(t *testing.T) {
	home := t.TempDir()
	d := startDaemon(t, home, []string{"OPENAI_BASE_URL=", "OPENAI_API_KEY="})
	if !strings.Contains(d.proc.Stderr(), "troupe daemon: no model is configured, so sessions cannot prompt one yet\nhint: "+home+" has no models.yml yet") {
		t.Fatalf("no first-use hint:\n%s", d.proc.Stderr())
	}
	env, model := llmEnv(t)
	d = startDaemon(t, t.TempDir(), env, model...)
	if strings.Contains(d.proc.Stderr(), "hint:") {
		t.Fatalf("a hint with a model configured:\n%s", d.proc.Stderr())
	}
}
