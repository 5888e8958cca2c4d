package main

import (
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// An export reads in Hydra's clients as Hydra's own: each prompt renders
// once (the user chunks that accompany a prompt_received carry Hydra's
// compatFor marker, which its renderers skip), and the session record
// carries the title, the interactive tristate, the client that opened it
// and the prompts typed in it (promptHistory).
func TestDaemonExportReadsAsHydras(t *testing.T) {
	fine := llmserver.Steps(llmserver.Text("fine"))
	srv := llmserver.New(t, llmserver.Script{Model: "tiny", Default: &fine})
	d := startDaemon(t, t.TempDir(), []string{"OPENAI_BASE_URL=" + srv.URL() + "/v1", "OPENAI_API_KEY="},
		"--provider", "openai", "--model", "tiny")
	c := d.dialACP(t, "hydra-tui")
	var created struct{ SessionID string }
	c.WaitAnswer(c.Call("session/new", map[string]any{"cwd": t.TempDir(), "mcpServers": []any{},
		"_meta": map[string]any{"hydra-acp": map[string]any{"interactive": true, "title": "exported"}}})).Decode(t, &created)
	sid := created.SessionID
	for _, text := range []string{"first question", "second question"} {
		if f := c.WaitAnswer(c.Prompt(sid, text)); f.Error != nil {
			t.Fatalf("prompt %q: %s", text, f.Raw)
		}
	}

	res := d.do(t, "GET", "/v1/sessions/"+sid+"/export", nil)
	testkit.Equal(t, res.StatusCode, http.StatusOK)
	raw, _ := io.ReadAll(res.Body)
	var b struct {
		Session struct {
			Title             string
			Interactive       *bool
			OriginatingClient *struct{ Name string }
		}
		PromptHistory []string
		History       []struct {
			Params struct {
				Update struct {
					SessionUpdate string
					MessageID     string
					Content       struct{ Text string }
					Prompt        []struct{ Text string }
					Meta          struct {
						Hydra struct{ CompatFor string } `json:"hydra-acp"`
					} `json:"_meta"`
				}
			}
		}
	}
	testkit.NoError(t, json.Unmarshal(raw, &b))
	testkit.Equal(t, b.Session.Title, "exported")
	if b.Session.Interactive == nil || !*b.Session.Interactive {
		t.Fatalf("session.interactive: %s", raw)
	}
	if b.Session.OriginatingClient == nil || b.Session.OriginatingClient.Name != "hydra-tui" {
		t.Fatalf("session.originatingClient: %s", raw)
	}
	testkit.DeepEqual(t, b.PromptHistory, []string{"first question", "second question"})

	// What Hydra's renderers show of the user's side: prompt_received,
	// and any user chunk not marked as its compat twin.
	var shown []string
	for _, h := range b.History {
		u := h.Params.Update
		switch {
		case u.SessionUpdate == "prompt_received" && len(u.Prompt) == 1:
			shown = append(shown, u.Prompt[0].Text)
		case u.SessionUpdate == "user_message_chunk" && u.Meta.Hydra.CompatFor != "prompt_received":
			shown = append(shown, u.Content.Text)
		}
	}
	testkit.DeepEqual(t, shown, []string{"first question", "second question"})
}
