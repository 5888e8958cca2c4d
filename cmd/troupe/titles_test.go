package main

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// storedTitle is the last title a session's log set, "" for none.
func storedTitle(t *testing.T, home, id string) string {
	t.Helper()
	title := ""
	for _, e := range readStored(t, testkit.BuildTroupe(t), home, id) {
		switch e.Kind {
		case event.SessionCreated:
			var p event.CreatedPayload
			testkit.NoError(t, json.Unmarshal(e.Payload, &p))
			title = p.Title
		case event.SessionSettingsChanged:
			var p event.Settings
			testkit.NoError(t, json.Unmarshal(e.Payload, &p))
			if p.Title != nil {
				title = *p.Title
			}
		}
	}
	return title
}

// Sessions made by troupe run, troupe acp and troupe mcp are titled by
// their first prompt's first line, as the daemon's are (issue 25, item 22).
func TestFirstPromptTitlesRunACPAndMCPSessions(t *testing.T) {
	const prompt = "fix the parser's error messages\nand add tests"
	const want = "fix the parser's error messages"
	t.Run("run", func(t *testing.T) {
		env, model := llmEnv(t, llmserver.Steps(llmserver.Text("done")))
		home := t.TempDir()
		code, out := runPrompt(t, home, env, model, "titled-run", prompt)
		testkit.Equal(t, code, 0)
		if got := storedTitle(t, home, "titled-run"); got != want {
			t.Fatalf("title %q, want %q; output:\n%s", got, want, out)
		}
	})
	t.Run("acp", func(t *testing.T) {
		env, model := llmEnv(t, llmserver.Steps(llmserver.Text("done")))
		home := t.TempDir()
		a := startACPStdio(t, home, env, model)
		sid := a.newSession()
		_, stop := a.promptToEnd(sid, prompt)
		testkit.Equal(t, stop, "end_turn")
		_ = a.p.Stdin.Close()
		testkit.Equal(t, a.p.Wait(t, 30*time.Second), 0)
		testkit.Equal(t, storedTitle(t, home, sid), want)
	})
	t.Run("mcp", func(t *testing.T) {
		env, model := llmEnv(t, llmserver.Steps(llmserver.Text("done")))
		home := t.TempDir()
		p := stdioPeer{testkit.Start(t, testkit.BuildTroupe(t), env, append([]string{"mcp", "--home", home}, model...)...)}
		initialize(t, p, "2025-06-18")
		created, _ := callTool(t, p, 2, "session.create", map[string]any{"cwd": t.TempDir()}, nil)
		var sess struct {
			SessionID string `json:"session_id"`
		}
		testkit.NoError(t, json.Unmarshal(created.StructuredContent, &sess))
		callTool(t, p, 3, "session.prompt", map[string]any{"session_id": sess.SessionID, "text": prompt}, nil)
		_ = p.p.Stdin.Close()
		testkit.Equal(t, p.p.Wait(t, mcpWait), 0)
		testkit.Equal(t, storedTitle(t, home, sess.SessionID), want)
	})
}
