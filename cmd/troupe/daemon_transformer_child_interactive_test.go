package main

import (
	"net/http"
	"testing"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// A transformer's child is not interactive unless its spawn says
// interactive: true: by default its REST entry says interactive false and
// the default listing leaves it out (includeNonInteractive shows it).
func TestDaemonTransformerChildInteractive(t *testing.T) {
	for _, tc := range []struct {
		env        string
		want, kept bool
	}{{"", false, false}, {"false", false, false}, {"true", true, true}} {
		t.Run("interactive="+tc.env, func(t *testing.T) {
			home, log := transformerHome(t, map[string]string{"PLUGIN_MODE": "child",
				"PLUGIN_INTERCEPTS": "lifecycle:session.opened", "PLUGIN_CHILD_INTERACTIVE": tc.env})
			fine := llmserver.Steps(llmserver.Text("fine"))
			srv := llmserver.New(t, llmserver.Script{Model: "tiny", Default: &fine})
			d := startDaemon(t, home, []string{"OPENAI_BASE_URL=" + srv.URL() + "/v1", "OPENAI_API_KEY="},
				"--provider", "openai", "--model", "tiny")
			d.waitRunning(t, "transformers", "tr", log, 0)
			c := d.dialACP(t, "editor")
			c.WaitAnswer(c.Call("session/new", map[string]any{"cwd": t.TempDir(), "mcpServers": []any{},
				"_meta": map[string]any{"hydra-acp": map[string]any{"transformers": []string{"tr"}}}}))
			var cid string
			testkit.Eventually(t, acpWait, "the child probe", func() bool {
				for _, l := range logLines(t, log) {
					if l["probe"] == "child" {
						cid, _ = l["childSessionId"].(string)
						return true
					}
				}
				return false
			})
			if cid == "" {
				t.Fatal("the transformer spawned no child")
			}
			var e struct {
				Interactive *bool `json:"interactive"`
			}
			d.call(t, "GET", "/v1/sessions/"+cid, nil, http.StatusOK, &e)
			if e.Interactive == nil || *e.Interactive != tc.want {
				t.Fatalf("the child's entry says interactive %v, want %v", e.Interactive, tc.want)
			}
			listed := func(path string) bool {
				var list struct {
					Sessions []struct {
						SessionID string `json:"sessionId"`
					} `json:"sessions"`
				}
				d.call(t, "GET", path, nil, http.StatusOK, &list)
				for _, s := range list.Sessions {
					if s.SessionID == cid {
						return true
					}
				}
				return false
			}
			testkit.Equal(t, listed("/v1/sessions"), tc.kept)
			testkit.Equal(t, listed("/v1/sessions?includeNonInteractive=1"), true)
		})
	}
}
