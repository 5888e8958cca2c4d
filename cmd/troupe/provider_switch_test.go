package main

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/troupehq/troupe/runtime/llm/providers"
	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/acpclient"
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
				llmserver.Steps(llmserver.Text("fourth answer, from " + row.provider)),
			}})
			home := t.TempDir()
			// local's server is where --base-url says: the flag is the
			// command's provider's, never the one a session switches to.
			yml := fmt.Sprintf("providers:\n  local:\n    base_url: http://127.0.0.1:9/v1\n    models: [{id: small}]\n  %s:\n%s    models: [{id: %q, api: %s, thinking: true}]\n",
				row.provider, row.baseURLLine(native), row.model, row.api)
			testkit.NoError(t, os.WriteFile(filepath.Join(home, "models.yml"), []byte(yml), 0o600))
			args := append([]string{"--mode", "rpc", "--home", home, "--cwd", t.TempDir(), "--thinking", "high",
				"--provider", "local", "--model", "small", "--base-url", local.URL() + "/v1"}, atRoot(row.args, native.URL())...)
			p := testkit.Start(t, bin, cleanProviderEnv(row.environment(native, home)...), args...)
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
			ask(fmt.Sprintf(`{"id":"6","type":"set_model","provider":%q,"modelId":%q}`, row.provider, row.model))
			turn("7", "question four")
			testkit.Equal(t, provider(), row.provider)

			toNative := modelRequests(native)
			testkit.Equal(t, len(toNative), 2)
			requireAll(t, string(toNative[0].Body), "question one", "first answer, from local", "question two")
			// Back on its provider, the thinking it signed goes back with
			// its signature; the local turns in between are plain history.
			requireAll(t, string(toNative[1].Body), "question one", "second answer, from "+row.provider, "third answer, from local", "question four")
			if row.api == providers.APIAnthropic || row.api == providers.APIBedrock || row.api == providers.APIVertex {
				requireAll(t, string(toNative[1].Body), llmserver.ThinkingSignature("Thinking it over."))
			}
			toLocal := modelRequests(local)
			testkit.Equal(t, len(toLocal), 2)
			requireAll(t, string(toLocal[1].Body), "question one", "first answer, from local", "question two", "second answer, from "+row.provider, "question three")
			if strings.Contains(string(toLocal[1].Body), llmserver.ThinkingSignature("Thinking it over.")) {
				t.Fatal("another provider's thinking signature went to the OpenAI-compatible server")
			}

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
		if r.Method == http.MethodPost && r.Path != llmserver.VertexTokenPath {
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

// The daemon lists the catalogs of the providers with a key among its
// built-in agent's models (GET /v1/agents), and ACP session/set_model
// moves a session onto each API's provider mid-session: the next turn
// runs there with the whole conversation.
func TestDaemonACPSetModelOntoEachProvider(t *testing.T) {
	for _, row := range providerRows {
		t.Run(row.api, func(t *testing.T) {
			local := llmserver.New(t, llmserver.Script{Model: "small", Replies: []llmserver.Reply{llmserver.Steps(llmserver.Text("first answer, from local"))}})
			native := llmserver.New(t, llmserver.Script{Model: row.model, Replies: []llmserver.Reply{llmserver.Steps(llmserver.Text("second answer, from " + row.provider))}})
			home := t.TempDir()
			yml := fmt.Sprintf("default: {provider: local, model: small}\nproviders:\n  local:\n    base_url: %s/v1\n    models: [{id: small}]\n  %s:\n%s    models: [{id: %q, api: %s}]\n",
				local.URL(), row.provider, row.baseURLLine(native), row.model, row.api)
			testkit.NoError(t, os.WriteFile(filepath.Join(home, "models.yml"), []byte(yml), 0o600))
			// Another provider with a key: its catalog is listed too.
			other, otherEnv, otherModels := "google", []string{"GEMINI_API_KEY=g-test"}, []string{"google/gemini-2.5-pro", "google/gemini-2.5-flash-lite"}
			if row.provider == other {
				other, otherEnv, otherModels = "anthropic", []string{"ANTHROPIC_API_KEY=sk-ant-test"}, []string{"anthropic/claude-sonnet-4-5", "anthropic/claude-haiku-4-5"}
			}
			env := cleanProviderEnv(append(otherEnv, row.environment(native, home)...)...)
			d := startDaemonBinary(t, home, env, atRoot(row.args, native.URL())...)

			var agents struct {
				Agents []struct {
					ID     string
					Models []struct{ ID string }
				}
			}
			d.call(t, "GET", "/v1/agents", nil, http.StatusOK, &agents)
			var listed []string
			for _, m := range agents.Agents[0].Models {
				listed = append(listed, m.ID)
			}
			for _, want := range append([]string{"local/small", row.provider + "/" + row.model}, otherModels...) {
				if !slices.Contains(listed, want) {
					t.Fatalf("/v1/agents lists %v, without %s (%s has a key)", listed, want, other)
				}
			}

			c := d.dialACP(t, "editor")
			sid, _ := c.NewSession(t.TempDir())
			end := func(id int) string {
				t.Helper()
				fs := c.Until(func(f acpclient.Frame) bool { return f.Answers(id) })
				return string(fs[len(fs)-1].Result)
			}
			testkit.Equal(t, end(c.Prompt(sid, "question one")), `{"stopReason":"end_turn"}`)
			if set := c.WaitAnswer(c.Call("session/set_model", map[string]any{"sessionId": sid, "modelId": row.provider + "/" + row.model})); set.Error != nil {
				t.Fatalf("set_model: %s", set.Raw)
			}
			testkit.Equal(t, end(c.Prompt(sid, "question two")), `{"stopReason":"end_turn"}`)
			toNative := modelRequests(native)
			testkit.Equal(t, len(toNative), 1)
			requireAll(t, string(toNative[0].Body), "question one", "first answer, from local", "question two")
		})
	}
}
