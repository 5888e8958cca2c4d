package main

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// wantLines fails unless out holds each of want.
func wantLines(t *testing.T, out string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Fatalf("no %q in:\n%s", w, out)
		}
	}
}

// closedPort is a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	testkit.NoError(t, err)
	addr := ln.Addr().String()
	testkit.NoError(t, ln.Close())
	return addr
}

// troupe doctor on a home broken every way it checks (permissions open to
// others, a models.yml that does not load, a store that is no database, a
// llama config whose llama-server is missing, an agent's and an
// extension's program missing; a model that does not answer) names each
// problem with what to fix, and exits 1; it changes nothing (the
// permissions it reports are still there after it).
func TestDoctorNamesEachProblemOfABrokenHome(t *testing.T) {
	t.Run("home", func(t *testing.T) {
		home := llamaHomeNoServer(t)
		testkit.NoError(t, os.Chmod(home, 0o755))
		testkit.NoError(t, os.WriteFile(filepath.Join(home, "models.yml"), []byte("providers:\n  lab: [\n"), 0o644))
		testkit.NoError(t, os.WriteFile(filepath.Join(home, "troupe.db"), []byte(strings.Repeat("not a database ", 600)), 0o600))
		testkit.NoError(t, os.WriteFile(filepath.Join(home, "config.json"), []byte(`{"agents":{"ghost":{"command":"troupe-no-such-agent"}}}`), 0o600))
		testkit.NoError(t, os.WriteFile(filepath.Join(home, "config.yml"), []byte("extensions:\n  - name: notes\n    command: [troupe-no-such-extension]\n"), 0o600))
		env := append(append([]string{}, noProviderEnv...), "TROUPE_HOME="+home, "PATH="+t.TempDir())

		r := cli(t, env, "", "doctor")
		testkit.Equal(t, r.code, 1)
		wantLines(t, r.stdout,
			"PROBLEM  ", "entries in the home are open to other local users: . (0755)", "fix: chmod -R go-rwx "+home,
			"PROBLEM  models.yml does not load: ", "move it away and run `troupe init`",
			"PROBLEM  the store "+filepath.Join(home, "troupe.db")+" cannot be read: ", "file is not a database", "restore it from a backup",
			`PROBLEM  llama-server "llama-server" is not found, and llama config(s) a run it`, "install llama.cpp's llama-server on $PATH",
			`PROBLEM  agent ghost: its command "troupe-no-such-agent" is not found`, "install it, or correct agents.ghost.command",
			`PROBLEM  extension notes: its command "troupe-no-such-extension" is not found`, "correct its command in config.yml",
			"6 problem(s)")
		fi, err := os.Stat(home)
		testkit.NoError(t, err)
		testkit.Equal(t, fi.Mode().Perm(), os.FileMode(0o755))
	})
	t.Run("unreachable model", func(t *testing.T) {
		home := t.TempDir()
		testkit.NoError(t, os.Chmod(home, 0o700))
		addr := closedPort(t)
		yml := "providers:\n  lab:\n    base_url: http://" + addr + "/v1\n    models:\n      - id: big\n"
		testkit.NoError(t, os.WriteFile(filepath.Join(home, "models.yml"), []byte(yml), 0o600))
		env := append(append([]string{}, noProviderEnv...), "TROUPE_HOME="+home, "PATH="+t.TempDir())
		r := cli(t, env, "", "doctor")
		testkit.Equal(t, r.code, 1)
		wantLines(t, r.stdout, "ok       models.yml loads: 1 provider(s)",
			"PROBLEM  provider lab at http://"+addr+"/v1 does not answer: ", "fix: start the server, or correct providers.lab.base_url",
			"warning  llama-server is not on $PATH", "1 problem(s), 1 warning(s)")
	})
}

// On the home troupe init made from $OPENAI_BASE_URL, after a run, the
// doctor finds nothing broken: the store passes its integrity check and
// the provider answers, listing the model models.yml names.
func TestDoctorPassesAHealthyHome(t *testing.T) {
	home := t.TempDir()
	srv := llmserver.New(t, llmserver.Script{Model: "tiny-coder", Replies: []llmserver.Reply{llmserver.Steps(llmserver.Text("fine"))}})
	env := append(append([]string{}, noProviderEnv...), "TROUPE_HOME="+home, "OPENAI_BASE_URL="+srv.URL()+"/v1")
	cli(t, env, "", "init").ok(t, "init")
	cli(t, env, "", "run", "hello").ok(t, "run")

	r := cli(t, append(env, "PATH="+t.TempDir()), "", "doctor")
	if r.code != 0 {
		t.Fatalf("doctor on a healthy home: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	wantLines(t, r.stdout, "ok       the home is private to you", "ok       the store passes SQLite's integrity check",
		"ok       provider endpoint at "+srv.URL()+"/v1 answers (200 OK)", "no problem, 1 warning(s)")
	if strings.Contains(r.stdout, "PROBLEM") || strings.Contains(r.stdout, "is not among the models") {
		t.Fatalf("a healthy home has problems:\n%s", r.stdout)
	}
}

// Doctor checks the built-in providers the environment configures, each
// through its own API's model list: a refused Anthropic key names its
// variable, Gemini's key goes as Google's header, and the cloud platforms
// (signed requests only) are resolved but not probed.
func TestDoctorChecksTheNativeProviders(t *testing.T) {
	home := t.TempDir()
	anthropic := llmserver.New(t, llmserver.Script{APIKey: "sk-ant-right"})
	gemini := llmserver.New(t, llmserver.Script{APIKey: "g-right"})
	env := append(append([]string{}, noProviderEnv...), "TROUPE_HOME="+home, "PATH="+t.TempDir(),
		"ANTHROPIC_API_KEY=sk-ant-wrong", "ANTHROPIC_BASE_URL="+anthropic.URL(),
		"GEMINI_API_KEY=g-right", "GOOGLE_GEMINI_BASE_URL="+gemini.URL(),
		"AWS_REGION=us-east-1", "AWS_ACCESS_KEY_ID=AKIATEST", "AWS_SECRET_ACCESS_KEY=secret", "AWS_ENDPOINT_URL_BEDROCK_RUNTIME=http://127.0.0.1:9")
	r := cli(t, env, "", "doctor")
	testkit.Equal(t, r.code, 1)
	wantLines(t, r.stdout,
		"PROBLEM  provider anthropic at "+anthropic.URL()+" refuses the API key (401 Unauthorized)",
		"fix: set a valid key in $ANTHROPIC_API_KEY",
		"ok       provider google at "+gemini.URL(),
		`ok       provider bedrock (api bedrock): region "us-east-1", project "" and credentials resolved; not probed`)
	reqs := anthropic.Requests()
	if len(reqs) != 1 || reqs[0].Path != "/v1/models" || reqs[0].Header.Get("x-api-key") != "sk-ant-wrong" {
		t.Fatalf("anthropic was asked %+v", reqs)
	}
	if reqs := gemini.Requests(); len(reqs) != 1 || reqs[0].Path != "/v1beta/models" || reqs[0].Header.Get("x-goog-api-key") != "g-right" {
		t.Fatalf("gemini was asked %+v", reqs)
	}
}

// llamaHomeNoServer is a home with llama config a, which names no
// server_path: it runs the llama-server on $PATH.
func llamaHomeNoServer(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	model, err := os.ReadFile("../../runtime/gguf/testdata/tiny-llama-random.gguf")
	testkit.NoError(t, err)
	modelPath := filepath.Join(home, "tiny.gguf")
	testkit.NoError(t, os.WriteFile(modelPath, model, 0o600))
	testkit.NoError(t, os.MkdirAll(filepath.Join(home, "configs"), 0o700))
	cfg := "model_path: " + modelPath + "\nctx: 2048\nn_slots: 1\n"
	testkit.NoError(t, os.WriteFile(filepath.Join(home, "configs", "a.yml"), []byte(cfg), 0o600))
	return home
}
