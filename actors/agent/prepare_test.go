package agent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/troupehq/troupe/runtime/agentpkg"
)

func TestSessionModes(t *testing.T) {
	h := Host{Home: t.TempDir()}
	m := agentpkg.Manifest{Name: "a"}
	for mode, check := range map[string]func(a, b string) bool{
		agentpkg.SessionStateless: func(a, b string) bool { return a == "" && b == "" },
		agentpkg.SessionFresh:     func(a, b string) bool { return strings.HasPrefix(a, "agent-a-") && a != b },
		agentpkg.SessionResume:    func(a, b string) bool { return strings.HasPrefix(a, "agent-a-") && a == b },
	} {
		m.Backend.Session = mode
		first, err := h.session(m)
		if err != nil {
			t.Fatal(err)
		}
		second, err := h.session(m)
		if err != nil {
			t.Fatal(err)
		}
		if !check(first, second) {
			t.Errorf("%s: %q then %q", mode, first, second)
		}
	}
}

func TestPrepareBackend(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(t.TempDir(), "pkg")
	write := func(manifest string) {
		t.Helper()
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, body := range map[string]string{"agent.yaml": manifest, "main.js": ""} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	h := Host{Home: home}
	t.Setenv("OPENAI_BASE_URL", "")
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("AGENT_LLM", "http://127.0.0.1:9/v1")
	write("name: x\nbackend: {url: '${AGENT_LLM}', model: m}\n")
	opts, err := h.Prepare(context.Background(), dir, nil, "")
	if err != nil || opts.Provider == nil || opts.Model != "m" {
		t.Fatalf("url from the environment: %+v, %v", opts, err)
	}
	write("name: x\n")
	if _, err := h.Prepare(context.Background(), dir, nil, ""); err == nil || !strings.Contains(err.Error(), "agent x has no model backend") ||
		!strings.Contains(err.Error(), "$OPENAI_BASE_URL") || !strings.Contains(err.Error(), "models.yml") {
		t.Errorf("no backend: %v", err)
	}
	// models.yml's default, as troupe run resolves it.
	models := "default: {provider: lab, model: m7}\nproviders:\n  lab:\n    base_url: http://127.0.0.1:9/v1\n    models: [{id: m7}]\n"
	if err := os.WriteFile(filepath.Join(home, "models.yml"), []byte(models), 0o600); err != nil {
		t.Fatal(err)
	}
	if opts, err := h.Prepare(context.Background(), dir, nil, ""); err != nil || opts.Provider == nil || opts.Model != "m7" {
		t.Errorf("models.yml's default: %+v, %v", opts, err)
	}
	if err := os.Remove(filepath.Join(home, "models.yml")); err != nil {
		t.Fatal(err)
	}
	write("name: x\nbackend: {config: big}\n")
	if _, err := h.Prepare(context.Background(), dir, nil, ""); err == nil || !strings.Contains(err.Error(), "runs no llama-servers") {
		t.Errorf("config without servers: %v", err)
	}
	write("name: x\nmode: script\n")
	if opts, err := h.Prepare(context.Background(), dir, nil, ""); err != nil || opts.Provider != nil {
		t.Errorf("a script needs no backend: %+v %v", opts, err)
	}
}
