package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/troupehq/troupe/actors/sessions/engine"
	"github.com/troupehq/troupe/actors/sessions/internal/session"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/runtime/modelconfig"
	"github.com/troupehq/troupe/runtime/tools"
	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestAutoToolStyleAsksLlamaServer(t *testing.T) {
	for _, supports := range []bool{true, false} {
		srv := llmserver.New(t, llmserver.Script{Model: "tiny", SupportsToolCalls: supports})
		e, err := engine.New(engine.Options{Home: t.TempDir(), Env: env(map[string]string{"OPENAI_BASE_URL": srv.URL() + "/v1"}),
			Selection: modelconfig.Selection{Provider: "openai", Model: "tiny"}})
		testkit.NoError(t, err)
		testkit.NoError(t, e.Check())
		m, err := e.Session().Resolve(context.Background(), session.State{})
		testkit.NoError(t, err)
		want := event.ToolStyleText
		if supports {
			want = event.ToolStyleNative
		}
		testkit.Equal(t, m.ToolStyle, want)
		testkit.Equal(t, m.ContextWindow, modelconfig.DefaultContextWindow)
	}
}

func TestModelsFileAndSessionSettings(t *testing.T) {
	home := t.TempDir()
	yml := `default: {provider: local, model: small}
providers:
  local:
    base_url: http://127.0.0.1:9/v1
    models:
      - {id: small, context_window: 4096, tool_style: text, cost: {input: 1, output: 2}}
      - {id: big, context_window: 65536, tool_style: native, thinking: true}
`
	testkit.NoError(t, os.WriteFile(filepath.Join(home, "models.yml"), []byte(yml), 0o644))
	e, err := engine.New(engine.Options{Home: home, Env: env(nil)})
	testkit.NoError(t, err)
	testkit.NoError(t, e.Check())
	ctx := context.Background()
	m, err := e.Session().Resolve(ctx, session.State{})
	testkit.NoError(t, err)
	testkit.Equal(t, m.ID, "small")
	testkit.Equal(t, m.ToolStyle, event.ToolStyleText)
	testkit.Equal(t, m.ContextWindow, 4096)
	testkit.Equal(t, m.Cost(event.Usage{Input: 1_000_000, Output: 1_000_000}), 3.0)

	big, level := "big", "high"
	m, err = e.Session().Resolve(ctx, session.State{Settings: event.Settings{Model: &big, ThinkingLevel: &level}})
	testkit.NoError(t, err)
	testkit.Equal(t, m.ID, "big")
	testkit.Equal(t, string(m.Thinking), "high")

	// CheckSettings resolves what a session with these settings runs on.
	res, err := e.CheckSettings(event.Settings{Model: &big})
	testkit.NoError(t, err)
	testkit.Equal(t, res.Provider+"/"+res.Model.ID, "local/big")
	bad := "hot"
	if _, err := e.CheckSettings(event.Settings{ThinkingLevel: &bad}); err == nil {
		t.Fatal("an unknown thinking level passed the check")
	}
	nowhere := "nowhere"
	if _, err := e.CheckSettings(event.Settings{Provider: &nowhere}); err == nil || !strings.Contains(err.Error(), `provider "nowhere" not found`) {
		t.Fatalf("unknown provider: %v", err)
	}
}

func TestBrokenModelsFileIsAnErrorUpFront(t *testing.T) {
	home := t.TempDir()
	testkit.NoError(t, os.WriteFile(filepath.Join(home, "models.yml"), []byte("providers:\n  a:\n    base_urll: x\n"), 0o644))
	_, err := engine.New(engine.Options{Home: home, Env: env(nil)})
	if err == nil || !strings.Contains(err.Error(), "base_urll") {
		t.Fatalf("error %v", err)
	}
}

func TestSkillsAreOfferedAndActivated(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, "skills", "release")
	testkit.NoError(t, os.MkdirAll(dir, 0o755))
	testkit.NoError(t, os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: release\ndescription: Cut a release\n---\nRun the release checklist.\n"), 0o644))
	e, err := engine.New(engine.Options{Home: home, Env: env(nil)})
	testkit.NoError(t, err)
	se := e.Session()
	if !strings.Contains(se.SystemPrompt(session.State{Cwd: "/w"}), "release") {
		t.Fatal("the skills catalog is not in the system prompt")
	}
	for _, tl := range se.Tools(session.State{}) {
		if tl.Name() != "activate_skill" {
			continue
		}
		res, err := tl.Run(context.Background(), tools.Call{Args: []byte(`{"name":"release"}`)}, nil)
		testkit.NoError(t, err)
		if !strings.Contains(res.Output, "release checklist") {
			t.Fatalf("activate_skill returned %q", res.Output)
		}
		return
	}
	t.Fatal("activate_skill is not offered")
}
