package main

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// cleanProviderEnv is the variables of every provider cleared, then vars.
func cleanProviderEnv(vars ...string) []string {
	env := make([]string, 0, len(providerVariables)+len(vars))
	for _, v := range providerVariables {
		env = append(env, v+"=")
	}
	return append(env, vars...)
}

// An aionrs host spawns `--json-stream --provider P` with the variables
// its spec lists for P: troupe reads exactly those and says ready; with
// one missing, the config_error names it in the spec's words. Nothing is
// sent to a model before a message, and every endpoint is a loopback one.
func TestJSONStreamBuiltinProvidersStartFromTheirVariables(t *testing.T) {
	bin := testkit.BuildTroupe(t)
	srv := llmserver.New(t, llmserver.Script{Model: "gpt-5"})
	root := srv.URL()
	creds := filepath.Join(t.TempDir(), "credentials.json")
	testkit.NoError(t, os.WriteFile(creds, []byte(`{"type":"service_account"}`), 0o600))
	for _, c := range []struct {
		provider string
		env      []string
		args     []string
	}{
		{"anthropic", []string{"ANTHROPIC_API_KEY=sk-ant-test", "ANTHROPIC_BASE_URL=" + root}, []string{"--model", "claude-sonnet-4-20250514"}},
		{"anthropic", []string{"ANTHROPIC_API_KEY=sk-ant-test", "ANTHROPIC_BASE_URL=" + root}, nil}, // the catalog's default model
		{"openai", []string{"OPENAI_API_KEY=sk-test", "OPENAI_BASE_URL=" + root + "/v1"}, []string{"--model", "gpt-5"}},
		{"bedrock", []string{"AWS_REGION=us-east-1", "AWS_ACCESS_KEY_ID=AKIATEST", "AWS_SECRET_ACCESS_KEY=secret", "AWS_ENDPOINT_URL_BEDROCK_RUNTIME=" + root},
			[]string{"--model", "anthropic.claude-sonnet-4-5-20250929-v1:0"}},
		{"bedrock", []string{"AWS_REGION=us-east-1", "AWS_PROFILE=dev", "AWS_ENDPOINT_URL_BEDROCK_RUNTIME=" + root}, nil},
		{"vertex", []string{"GOOGLE_APPLICATION_CREDENTIALS=" + creds, "VERTEX_PROJECT_ID=proj", "VERTEX_REGION=us-east5"},
			[]string{"--base-url", root + "/v1"}},
	} {
		t.Run(c.provider+strings.Join(c.args, ""), func(t *testing.T) {
			args := append([]string{"--json-stream", "--home", t.TempDir(), "--workspace", t.TempDir(), "--provider", c.provider}, c.args...)
			p := testkit.Start(t, bin, cleanProviderEnv(c.env...), args...)
			line, ok := p.ReadLine(30 * time.Second)
			if !ok || !strings.Contains(line, `"type":"ready"`) {
				t.Fatalf("first line %q, want ready; stderr:\n%s", line, p.Stderr())
			}
			testkit.NoError(t, p.Stdin.Close())
			testkit.Equal(t, p.Wait(t, 30*time.Second), 0)
		})
	}

	for _, c := range []struct {
		provider, want string
		env            []string
	}{
		{"anthropic", `ANTHROPIC_API_KEY not set`, nil},
		{"openai", `OPENAI_API_KEY not set`, nil},
		{"bedrock", `AWS_REGION not set`, []string{"AWS_ACCESS_KEY_ID=AKIATEST"}},
		{"vertex", `VERTEX_PROJECT_ID not set`, []string{"VERTEX_REGION=us-east5"}},
		{"vertex", `VERTEX_REGION not set`, []string{"VERTEX_PROJECT_ID=proj"}},
	} {
		t.Run("without "+c.want, func(t *testing.T) {
			r := cli(t, cleanProviderEnv(c.env...), "", "--json-stream", "--home", t.TempDir(), "--workspace", t.TempDir(), "--provider", c.provider)
			testkit.Equal(t, r.code, 2)
			var out struct {
				Type  string
				Error struct {
					Code, Message string
					Retryable     bool
				}
			}
			testkit.NoError(t, json.Unmarshal([]byte(strings.TrimSpace(r.stdout)), &out))
			if out.Type != "error" || out.Error.Code != "config_error" || !strings.HasPrefix(out.Error.Message, c.want+": ") || out.Error.Retryable {
				t.Fatalf("stdout %s, want a config_error starting %q", r.stdout, c.want)
			}
		})
	}
}

// pi's RPC mode with --provider google (GEMINI_API_KEY) runs the Gemini
// catalog's default model and lists the catalog; with ANTHROPIC_API_KEY
// set too, Anthropic's catalog follows (the providers with a key).
func TestRPCProviderGoogleFromPiVariables(t *testing.T) {
	srv := llmserver.New(t, llmserver.Script{APIKey: "g-test", Replies: []llmserver.Reply{llmserver.Steps(llmserver.Text("hello from gemini"))}})
	p := testkit.Start(t, testkit.BuildTroupe(t), cleanProviderEnv("GEMINI_API_KEY=g-test", "GOOGLE_GEMINI_BASE_URL="+srv.URL(), "ANTHROPIC_API_KEY=sk-ant-test"),
		"--mode", "rpc", "--home", t.TempDir(), "--cwd", t.TempDir(), "--provider", "google")
	ask := rpcAsker(t, p)
	model := ask(`{"id":"1","type":"get_state"}`)["model"].(map[string]any)
	testkit.Equal(t, model["id"], any("gemini-2.5-pro"))
	testkit.Equal(t, model["provider"], any("google"))
	testkit.Equal(t, model["api"], any("google-generative-ai"))
	testkit.Equal(t, model["baseUrl"], any(srv.URL()))
	testkit.Equal(t, model["contextWindow"], any(float64(1048576)))

	var listed []string
	for _, m := range ask(`{"id":"2","type":"get_available_models"}`)["models"].([]any) {
		o := m.(map[string]any)
		listed = append(listed, o["provider"].(string)+"/"+o["id"].(string)+" "+o["api"].(string))
	}
	testkit.DeepEqual(t, listed, []string{
		"anthropic/claude-sonnet-4-5 anthropic-messages", "anthropic/claude-opus-4-1 anthropic-messages", "anthropic/claude-haiku-4-5 anthropic-messages",
		"google/gemini-2.5-pro google-generative-ai", "google/gemini-2.5-flash google-generative-ai", "google/gemini-2.5-flash-lite google-generative-ai",
	})
	ask(`{"id":"3","type":"prompt","message":"say hello"}`)
	expectLine(t, p, `"type":"agent_end"`)
	msgs := ask(`{"id":"4","type":"get_messages"}`)["messages"].([]any)
	last, _ := json.Marshal(msgs[len(msgs)-1])
	requireAll(t, string(last), `"role":"assistant"`, "hello from gemini", `"provider":"google"`)
	testkit.Equal(t, len(srv.ChatRequests()), 1)
	testkit.NoError(t, p.Stdin.Close())
	testkit.Equal(t, p.Wait(t, 20*time.Second), 0)
}

// rpcAsker sends RPC commands and returns each one's response data,
// failing the test on a failed one.
func rpcAsker(t *testing.T, p *testkit.Proc) func(string) map[string]any {
	return func(cmd string) map[string]any {
		t.Helper()
		data, ok, line := rpcAsk(t, p, cmd)
		if !ok {
			t.Fatalf("%s failed: %s", cmd, line)
		}
		return data
	}
}

func rpcAsk(t *testing.T, p *testkit.Proc, cmd string) (map[string]any, bool, string) {
	t.Helper()
	if _, err := io.WriteString(p.Stdin, cmd+"\n"); err != nil {
		t.Fatal(err)
	}
	var sent struct{ ID string }
	testkit.NoError(t, json.Unmarshal([]byte(cmd), &sent))
	for {
		line, ok := p.ReadLine(30 * time.Second)
		if !ok {
			t.Fatalf("no answer to %s; stderr:\n%s", cmd, p.Stderr())
		}
		var m map[string]any
		testkit.NoError(t, json.Unmarshal([]byte(line), &m))
		if m["type"] == "response" && m["id"] == sent.ID {
			data, _ := m["data"].(map[string]any)
			return data, m["success"] == true, line
		}
	}
}

// An aionrs host's `--json-stream --provider anthropic|bedrock`, given
// only the variables its spec lists, answers a message from the
// provider's fake: the whole path from the variables to the wire.
func TestJSONStreamAnswersFromNativeProviders(t *testing.T) {
	bin := testkit.BuildTroupe(t)
	for _, c := range []struct {
		provider string
		env      func(root string) []string
	}{
		{"anthropic", func(root string) []string {
			return []string{"ANTHROPIC_API_KEY=sk-ant-test", "ANTHROPIC_BASE_URL=" + root}
		}},
		{"bedrock", func(root string) []string {
			return []string{"AWS_REGION=us-east-1", "AWS_ACCESS_KEY_ID=AKIATEST", "AWS_SECRET_ACCESS_KEY=secret", "AWS_ENDPOINT_URL_BEDROCK_RUNTIME=" + root}
		}},
	} {
		t.Run(c.provider, func(t *testing.T) {
			srv := llmserver.New(t, llmserver.Script{Replies: []llmserver.Reply{llmserver.Steps(llmserver.Text("hello from " + c.provider))}})
			p := testkit.Start(t, bin, cleanProviderEnv(c.env(srv.URL())...),
				"--json-stream", "--home", t.TempDir(), "--workspace", t.TempDir(), "--provider", c.provider)
			expectLine(t, p, `"type":"ready"`)
			_, err := io.WriteString(p.Stdin, `{"type":"message","msg_id":"m1","input":"say hello"}`+"\n")
			testkit.NoError(t, err)
			var text strings.Builder
			for {
				line, ok := p.ReadLine(30 * time.Second)
				if !ok {
					t.Fatalf("no stream_end; text so far %q; stderr:\n%s", text.String(), p.Stderr())
				}
				var ev struct{ Type, Text string }
				testkit.NoError(t, json.Unmarshal([]byte(line), &ev))
				if ev.Type == "error" {
					t.Fatalf("error: %s", line)
				}
				if ev.Type == "text_delta" {
					text.WriteString(ev.Text)
				}
				if ev.Type == "stream_end" {
					break
				}
			}
			testkit.Equal(t, text.String(), "hello from "+c.provider)
			testkit.Equal(t, len(srv.ChatRequests()), 1)
			testkit.NoError(t, p.Stdin.Close())
			testkit.Equal(t, p.Wait(t, 30*time.Second), 0)
		})
	}
}
