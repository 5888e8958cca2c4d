package main

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// set_model moves a pi RPC session from an OpenAI-compatible server to
// each API's provider (with thinking) and back mid-session: every turn is
// answered by the provider then selected, and each is handed the whole
// conversation, the other provider's replies included.
func TestRPCSetModelSwitchesProviderMidSession(t *testing.T) {
	bin := testkit.BuildTroupe(t)
	for _, row := range providerRows {
		t.Run(row.api, func(t *testing.T) {
			local := llmserver.New(t, llmserver.Script{Model: "small", Replies: []llmserver.Reply{
				llmserver.Steps(llmserver.Text("first answer, from local")),
				llmserver.Steps(llmserver.Text("third answer, from local")),
			}})
			native := llmserver.New(t, llmserver.Script{Model: row.model, Replies: []llmserver.Reply{
				llmserver.Steps(llmserver.Thinking("Thinking it over."), llmserver.Text("second answer, from "+row.provider)),
			}})
			home := t.TempDir()
			// local's server is where --base-url says: the flag is the
			// command's provider's, never the one a session switches to.
			yml := fmt.Sprintf("providers:\n  local:\n    base_url: http://127.0.0.1:9/v1\n    models: [{id: small}]\n  %s:\n    models: [{id: %q, thinking: true}]\n",
				row.provider, row.model)
			testkit.NoError(t, os.WriteFile(filepath.Join(home, "models.yml"), []byte(yml), 0o600))
			args := append([]string{"--mode", "rpc", "--home", home, "--cwd", t.TempDir(), "--thinking", "high",
				"--provider", "local", "--model", "small", "--base-url", local.URL() + "/v1"}, atRoot(row.args, native.URL())...)
			p := testkit.Start(t, bin, cleanProviderEnv(atRoot(row.env, native.URL())...), args...)
			ask := rpcAsker(t, p)
			turn := func(id, text string) {
				t.Helper()
				ask(fmt.Sprintf(`{"id":%q,"type":"prompt","message":%q}`, id, text))
				expectLine(t, p, `"type":"agent_end"`)
			}
			provider := func() string {
				t.Helper()
				return ask(`{"id":"s","type":"get_state"}`)["model"].(map[string]any)["provider"].(string)
			}

			turn("1", "question one")
			testkit.Equal(t, provider(), "local")
			ask(fmt.Sprintf(`{"id":"2","type":"set_model","provider":%q,"modelId":%q}`, row.provider, row.model))
			testkit.Equal(t, provider(), row.provider)
			turn("3", "question two")
			ask(`{"id":"4","type":"set_model","provider":"local","modelId":"small"}`)
			turn("5", "question three")
			testkit.Equal(t, provider(), "local")

			toNative := modelRequests(native)
			testkit.Equal(t, len(toNative), 1)
			requireAll(t, string(toNative[0].Body), "question one", "first answer, from local", "question two")
			toLocal := modelRequests(local)
			testkit.Equal(t, len(toLocal), 2)
			requireAll(t, string(toLocal[1].Body), "question one", "first answer, from local", "question two", "second answer, from "+row.provider, "question three")

			testkit.NoError(t, p.Stdin.Close())
			testkit.Equal(t, p.Wait(t, 20*time.Second), 0)
		})
	}
}

// modelRequests are the requests a fake was sent for replies, on any
// API's route.
func modelRequests(srv *llmserver.Server) []llmserver.Request {
	var out []llmserver.Request
	for _, r := range srv.Requests() {
		if r.Method == http.MethodPost {
			out = append(out, r)
		}
	}
	return out
}

func requireAll(t *testing.T, body string, parts ...string) {
	t.Helper()
	for _, part := range parts {
		if !strings.Contains(body, part) {
			t.Fatalf("request lacks %q:\n%s", part, body)
		}
	}
}
