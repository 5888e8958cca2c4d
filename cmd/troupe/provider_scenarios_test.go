package main

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/runtime/llm/providers"
	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// providerRow points troupe at the scripted fake for one API, the way a
// user points it at the real one: --provider, --model, and the variables
// (or flags) that carry the endpoint and key. One Script is served in
// every API's wire format by testkit/llmserver, so each row plays the
// same scenarios.
type providerRow struct {
	api      string // runtime/llm/providers' API name
	provider string // --provider
	model    string // --model; also the Script's model
	// env points the provider at the fake: variables whose "{root}" is
	// the fake's root URL (llmserver.Server.URL(), no path) and whose
	// "{credentials}" is a Google service-account file whose token_uri is
	// the fake's (Vertex).
	env []string
	// args are extra flags, "{root}" filled in the same way.
	args []string
	// baseURL, "{root}" filled in, goes to the provider's base_url in
	// models.yml: for a platform without a base URL variable (Vertex).
	baseURL string
	// textTools: the API's models may write tool calls as tagged text,
	// which only OpenAI-compatible servers (llama-server) do.
	textTools bool
}

// providerRows: one line per API, each pointed at its wire format in
// testkit/llmserver.
var providerRows = []providerRow{
	{api: providers.APIOpenAI, provider: "openai", model: "tiny", textTools: true, env: []string{"OPENAI_BASE_URL={root}/v1", "OPENAI_API_KEY=sk-test"}},
	{api: providers.APIOpenAIResponses, provider: "openai", model: "gpt-5-codex", env: []string{"OPENAI_BASE_URL={root}/v1", "OPENAI_API_KEY=sk-test"}},
	{api: providers.APIGoogle, provider: "google", model: "gemini-2.5-pro", env: []string{"GOOGLE_GEMINI_BASE_URL={root}", "GEMINI_API_KEY=test-key"}},
	{api: providers.APIAnthropic, provider: "anthropic", model: "claude-sonnet-4-5", env: []string{"ANTHROPIC_BASE_URL={root}", "ANTHROPIC_API_KEY=sk-test"}},
	{api: providers.APIBedrock, provider: "bedrock", model: "anthropic.claude-sonnet-4-5-20250929-v1:0", env: []string{"AWS_REGION=us-east-1", "AWS_ACCESS_KEY_ID=test", "AWS_SECRET_ACCESS_KEY=test", "AWS_ENDPOINT_URL_BEDROCK_RUNTIME={root}"}},
	{api: providers.APIVertex, provider: "vertex", model: "claude-sonnet-4-5@20250929", env: []string{"VERTEX_PROJECT_ID=proj", "VERTEX_REGION=us-east5", "GOOGLE_APPLICATION_CREDENTIALS={credentials}"}, baseURL: "{root}"},
}

// atRoot is each of list with "{root}" replaced by root.
func atRoot(list []string, root string) []string {
	out := make([]string, len(list))
	for i, v := range list {
		out[i] = strings.ReplaceAll(v, "{root}", root)
	}
	return out
}

// providerVariables are cleared for every row, so the test machine's own
// keys and endpoints never reach a test (nor a test the network).
var providerVariables = []string{
	"OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL",
	"GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GEMINI_BASE_URL",
	"AWS_REGION", "AWS_DEFAULT_REGION", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE",
	"AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_BEDROCK_RUNTIME", "AWS_BEARER_TOKEN_BEDROCK",
	"GOOGLE_APPLICATION_CREDENTIALS", "VERTEX_PROJECT_ID", "VERTEX_REGION", "GOOGLE_CLOUD_PROJECT", "CLOUD_ML_REGION",
}

// scenarioPrices are the row model's prices in the scenario home's
// models.yml, so cost is checked the same way for every API.
const scenarioPrices = "{input: 2, output: 10, cache_read: 0.5, cache_write: 4}"

// scenario is one row's fake, home and working directory.
type scenario struct {
	row       providerRow
	bin       string
	srv       *llmserver.Server
	home, cwd string
}

func newScenario(t *testing.T, row providerRow, script llmserver.Script) *scenario {
	t.Helper()
	script.Model = row.model
	s := &scenario{row: row, bin: testkit.BuildTroupe(t), srv: llmserver.New(t, script), home: t.TempDir(), cwd: t.TempDir()}
	yml := fmt.Sprintf("providers:\n  %s:\n%s    models:\n      - {id: %q, api: %s, thinking: true, cost: %s}\n", row.provider, row.baseURLLine(s.srv), row.model, row.api, scenarioPrices)
	testkit.NoError(t, os.WriteFile(filepath.Join(s.home, "models.yml"), []byte(yml), 0o600))
	return s
}

func (s *scenario) env() []string {
	env := make([]string, 0, len(providerVariables)+4)
	for _, v := range providerVariables {
		env = append(env, v+"=")
	}
	return append(env, s.row.environment(s.srv, s.home)...)
}

// baseURLLine is the row's base_url for models.yml, indented under its
// provider, or nothing.
func (row providerRow) baseURLLine(srv *llmserver.Server) string {
	if row.baseURL == "" {
		return ""
	}
	return "    base_url: " + strings.ReplaceAll(row.baseURL, "{root}", srv.URL()) + "\n"
}

// environment is the row's variables pointed at srv: "{root}" is its
// URL, and "{credentials}" a service-account file written into dir.
func (row providerRow) environment(srv *llmserver.Server, dir string) []string {
	env := atRoot(row.env, srv.URL())
	for i, v := range env {
		if !strings.Contains(v, "{credentials}") {
			continue
		}
		creds, err := srv.WriteVertexCredentials(dir, "proj")
		if err != nil {
			panic(fmt.Sprintf("write the Vertex credentials: %v", err)) // a test bug: the directory is the test's
		}
		env[i] = strings.ReplaceAll(v, "{credentials}", creds)
	}
	return env
}

// start runs `troupe run --json` on the row's provider; args come before
// the prompt (none: continue the session's interrupted run).
func (s *scenario) start(t *testing.T, args ...string) *testkit.Proc {
	t.Helper()
	all := []string{"run", "--home", s.home, "--cwd", s.cwd, "--provider", s.row.provider, "--model", s.row.model,
		"--yolo", "--json", "--retry-delay", "10ms"}
	all = append(all, atRoot(s.row.args, s.srv.URL())...)
	return testkit.Start(t, s.bin, s.env(), append(all, args...)...)
}

// runToEnd runs a prompt and returns its events up to run.ended, and
// the exit status.
func (s *scenario) runToEnd(t *testing.T, args ...string) ([]event.Event, int) {
	t.Helper()
	p := s.start(t, args...)
	evs := decodeEvents(t, p, func(e event.Event) bool { return e.Kind == event.RunEnded })
	return evs, p.Wait(t, 30*time.Second)
}

func payloads[T any](t *testing.T, evs []event.Event, kind event.Kind) []T {
	t.Helper()
	var out []T
	for _, e := range evs {
		if e.Kind != kind {
			continue
		}
		var p T
		testkit.NoError(t, e.Decode(&p))
		out = append(out, p)
	}
	return out
}

func ended(t *testing.T, evs []event.Event) event.RunEndedPayload {
	t.Helper()
	ends := payloads[event.RunEndedPayload](t, evs, event.RunEnded)
	if len(ends) == 0 {
		t.Fatal("no run.ended")
	}
	return ends[len(ends)-1]
}

func lastText(t *testing.T, evs []event.Event) string {
	t.Helper()
	msgs := payloads[event.MessageCompletedPayload](t, evs, event.MessageCompleted)
	if len(msgs) == 0 {
		t.Fatal("no message.completed")
	}
	return msgs[len(msgs)-1].Text
}

func toolStatuses(t *testing.T, evs []event.Event) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, c := range payloads[event.ToolCompletedPayload](t, evs, event.ToolCompleted) {
		out[c.ToolCallID] = c.Status
	}
	return out
}

// TestProviderScenarios plays the engine's scenarios against each API's
// fake through the binary: what the canonical events say must not depend
// on which provider streamed them.
func TestProviderScenarios(t *testing.T) {
	for _, row := range providerRows {
		t.Run(row.api, func(t *testing.T) {
			t.Parallel()
			playScenarios(t, row)
		})
	}
}

func playScenarios(t *testing.T, row providerRow) {
	t.Run("text", func(t *testing.T) {
		s := newScenario(t, row, llmserver.Script{Replies: []llmserver.Reply{llmserver.Steps(llmserver.Text("Hello "), llmserver.Text("there."))}})
		evs, code := s.runToEnd(t, "say hello")
		testkit.Equal(t, code, 0)
		testkit.Equal(t, ended(t, evs).StopReason, event.StopEndTurn)
		testkit.Equal(t, lastText(t, evs), "Hello there.")
	})

	t.Run("thinking", func(t *testing.T) {
		s := newScenario(t, row, llmserver.Script{Replies: []llmserver.Reply{
			llmserver.Steps(llmserver.Thinking("The user wants a number."), llmserver.Text("42")),
		}})
		evs, code := s.runToEnd(t, "--thinking", "high", "pick a number")
		testkit.Equal(t, code, 0)
		msgs := payloads[event.MessageCompletedPayload](t, evs, event.MessageCompleted)
		testkit.Equal(t, msgs[len(msgs)-1].Thinking, "The user wants a number.")
		testkit.Equal(t, msgs[len(msgs)-1].Text, "42")
	})

	t.Run("tool call", func(t *testing.T) {
		s := newScenario(t, row, llmserver.Script{Replies: []llmserver.Reply{
			llmserver.Steps(llmserver.Text("Looking."), llmserver.ToolCall("call_1", "ls", `{}`)),
			llmserver.Steps(llmserver.Text("One file.")),
		}})
		testkit.NoError(t, os.WriteFile(filepath.Join(s.cwd, "notes.txt"), []byte("x"), 0o600))
		evs, code := s.runToEnd(t, "what is here?")
		testkit.Equal(t, code, 0)
		testkit.DeepEqual(t, toolStatuses(t, evs), map[string]string{"call_1": event.ToolSuccess})
		testkit.Equal(t, lastText(t, evs), "One file.")
		assertToolResultSent(t, s.srv, "notes.txt")
	})

	t.Run("parallel tool calls", func(t *testing.T) {
		s := newScenario(t, row, llmserver.Script{Replies: []llmserver.Reply{
			llmserver.Steps(llmserver.ToolCall("call_1", "ls", `{}`), llmserver.ToolCall("call_2", "read", `{"path":"notes.txt"}`)),
			llmserver.Steps(llmserver.Text("Both done.")),
		}})
		testkit.NoError(t, os.WriteFile(filepath.Join(s.cwd, "notes.txt"), []byte("remember the milk"), 0o600))
		evs, code := s.runToEnd(t, "look around")
		testkit.Equal(t, code, 0)
		testkit.DeepEqual(t, toolStatuses(t, evs), map[string]string{"call_1": event.ToolSuccess, "call_2": event.ToolSuccess})
		testkit.Equal(t, lastText(t, evs), "Both done.")
		assertToolResultSent(t, s.srv, "remember the milk")
	})

	if row.textTools {
		t.Run("text-tagged tool call", func(t *testing.T) {
			s := newScenario(t, row, llmserver.Script{SupportsToolCalls: false, Replies: []llmserver.Reply{
				llmserver.Steps(llmserver.TextToolCall(llmserver.FormatQwen, llmserver.InnerJSON, "ls", map[string]any{})),
				llmserver.Steps(llmserver.Text("Listed.")),
			}})
			evs, code := s.runToEnd(t, "list")
			testkit.Equal(t, code, 0)
			if statuses := toolStatuses(t, evs); len(statuses) != 1 {
				t.Fatalf("tool calls %v, want the one written as text", statuses)
			}
			testkit.Equal(t, lastText(t, evs), "Listed.")
		})
	}

	t.Run("error mid-stream is retried", func(t *testing.T) {
		s := newScenario(t, row, llmserver.Script{Replies: []llmserver.Reply{
			llmserver.Steps(llmserver.Text("Half an ans"), llmserver.StreamError(llmserver.APIError{Status: 503, Message: "overloaded"})),
			llmserver.Steps(llmserver.Text("A whole answer.")),
		}})
		evs, code := s.runToEnd(t, "answer")
		testkit.Equal(t, code, 0)
		testkit.Equal(t, len(payloads[event.RetryPayload](t, evs, event.RetryStarted)), 1)
		testkit.Equal(t, ended(t, evs).StopReason, event.StopEndTurn)
		testkit.Equal(t, lastText(t, evs), "A whole answer.")
	})

	t.Run("non-retryable error", func(t *testing.T) {
		s := newScenario(t, row, llmserver.Script{Replies: []llmserver.Reply{
			llmserver.Steps(llmserver.HTTPError(llmserver.APIError{Status: 400, Message: "prompt is malformed"})),
		}})
		evs, code := s.runToEnd(t, "answer")
		testkit.Equal(t, code, exitError)
		testkit.Equal(t, len(payloads[event.RetryPayload](t, evs, event.RetryStarted)), 0)
		end := ended(t, evs)
		testkit.Equal(t, end.StopReason, event.StopError)
		testkit.Equal(t, end.ErrorKind, "provider")
		if end.Retryable || !strings.Contains(end.Error, "prompt is malformed") {
			t.Fatalf("run.ended %+v", end)
		}
	})

	t.Run("cancel mid-stream", func(t *testing.T) {
		s := newScenario(t, row, llmserver.Script{Replies: []llmserver.Reply{
			llmserver.Steps(llmserver.Text("Starting"), llmserver.Delay(time.Minute), llmserver.Text(" never sent")),
		}})
		p := s.start(t, "take your time")
		decodeEvents(t, p, func(e event.Event) bool { return e.Kind == event.MessageDelta })
		p.Signal(syscall.SIGINT)
		evs := decodeEvents(t, p, func(e event.Event) bool { return e.Kind == event.RunEnded })
		testkit.Equal(t, p.Wait(t, 30*time.Second), exitCancelled)
		testkit.Equal(t, ended(t, evs).StopReason, event.StopCancelled)
	})

	t.Run("usage and cost", func(t *testing.T) {
		s := newScenario(t, row, llmserver.Script{Replies: []llmserver.Reply{
			llmserver.Steps(llmserver.Text("Counted."), llmserver.ReportUsage(llmserver.Usage{PromptTokens: 1_000_000, CompletionTokens: 100_000, CachedTokens: 200_000})),
		}})
		evs, code := s.runToEnd(t, "count")
		testkit.Equal(t, code, 0)
		u := ended(t, evs).Usage
		testkit.Equal(t, u.Input+u.CacheRead+u.CacheWrite, int64(1_000_000))
		testkit.Equal(t, u.Output, int64(100_000))
		testkit.Equal(t, u.CacheRead, int64(200_000))
		// scenarioPrices, per million tokens.
		want := (2*float64(u.Input) + 10*float64(u.Output) + 0.5*float64(u.CacheRead) + 4*float64(u.CacheWrite)) / 1e6
		if math.Abs(u.Cost-want) > 1e-9 || u.Cost == 0 {
			t.Fatalf("cost %v, want %v from %+v", u.Cost, want, u)
		}
	})

	t.Run("resumed after SIGKILL", func(t *testing.T) {
		pidFile := filepath.Join(t.TempDir(), "pid")
		args, _ := json.Marshal(map[string]string{"command": "sleep 30 & echo $! > " + pidFile + "; wait"})
		s := newScenario(t, row, llmserver.Script{Replies: []llmserver.Reply{
			llmserver.Steps(llmserver.ToolCall("call_1", "bash", string(args))),
			llmserver.Steps(llmserver.Text("Carried on.")),
		}})
		p := s.start(t, "--session", "killed", "start the long job")
		decodeEvents(t, p, func(e event.Event) bool { return e.Kind == event.ToolStarted })
		testkit.Eventually(t, 10*time.Second, "the tool started its sleep", func() bool {
			_, err := os.Stat(pidFile)
			return err == nil
		})
		p.Kill()
		p.Wait(t, 10*time.Second)

		p = s.start(t, "--session", "killed")
		evs := decodeEvents(t, p, func(e event.Event) bool { return e.Kind == event.RunEnded })
		testkit.Equal(t, p.Wait(t, 30*time.Second), 0)
		testkit.Equal(t, toolStatuses(t, evs)["call_1"], event.ToolInterrupted)
		testkit.Equal(t, ended(t, evs).StopReason, event.StopEndTurn)
		testkit.Equal(t, lastText(t, evs), "Carried on.")
	})
}

// assertToolResultSent: the request after the tool ran carried its output
// back to the model, in whatever shape the API gives tool results.
func assertToolResultSent(t *testing.T, srv *llmserver.Server, output string) {
	t.Helper()
	var chats []llmserver.Request
	for _, r := range srv.Requests() {
		if r.Method == http.MethodPost && r.Path != llmserver.VertexTokenPath { // a model request, on any API's route
			chats = append(chats, r)
		}
	}
	if len(chats) < 2 || !strings.Contains(string(chats[1].Body), output) {
		t.Fatalf("the second model request does not carry the tool's output %q", output)
	}
}
