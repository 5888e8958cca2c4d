package main

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/troupehq/troupe/persistence"
	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/acpclient"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// Each test here runs its own daemon binary, so the counters it reads are
// that daemon's alone.

func isPermissionAsk(f acpclient.Frame) bool { return f.Method == "session/request_permission" }

// A scrape taken mid-turn (a tool call waiting for its permission, a
// client attached) passes Prometheus's own linter, and so does one after
// the turn, when every family has series; /metrics wants the daemon's
// token like every other route.
func TestMetricsScrapeDuringABusyRunPassesPromtool(t *testing.T) {
	env, model := llmEnv(t, llmserver.Steps(llmserver.Text("let me look"), llmserver.ToolCall("c1", "bash", `{"command":"echo busy"}`)),
		llmserver.Steps(llmserver.Text("done"), llmserver.ReportUsage(llmserver.Usage{PromptTokens: 30, CompletionTokens: 2})))
	d := startDaemonBinary(t, t.TempDir(), env, model...)
	testkit.Equal(t, d.doWith(t, http.MethodGet, "/metrics", nil, nil).StatusCode, http.StatusUnauthorized)

	a := d.dialACP(t, "editor")
	sid, _ := a.NewSession(t.TempDir())
	pid := a.Prompt(sid, "look around")
	asked := a.Until(isPermissionAsk)
	busy := d.scrape(t)
	testkit.Equal(t, busy.value("troupe_sessions", "state", "busy"), 1.0)
	promtoolCheck(t, busy.text)

	a.AnswerPermission(asked[len(asked)-1].ID, "allow_once")
	a.Until(func(f acpclient.Frame) bool { return f.Answers(pid) })
	after := d.scrape(t)
	testkit.Equal(t, after.value("troupe_tool_calls_total", "tool", "bash", "outcome", "ok"), 1.0)
	promtoolCheck(t, after.text)
}

// The store group: a turn's events are appended in commits whose latency
// is observed; the store's files have sizes; an attach that replays the
// history moves the replay counter.
func TestMetricsStore(t *testing.T) {
	env, model := llmEnv(t, llmserver.Steps(llmserver.Text("stored answer")))
	d := startDaemonBinary(t, t.TempDir(), env, append(model, "--approval-mode", "yolo")...)
	before := d.scrape(t)
	a := d.dialACP(t, "editor")
	sid, _ := a.NewSession(t.TempDir())
	pid := a.Prompt(sid, "store this")
	a.Until(func(f acpclient.Frame) bool { return f.Answers(pid) })

	after := d.scrape(t)
	if after.value("troupe_events_appended_total") <= before.value("troupe_events_appended_total") {
		t.Fatalf("a turn appended no event:\n%s", after.text)
	}
	if after.value("troupe_store_commit_seconds") <= before.value("troupe_store_commit_seconds") {
		t.Fatalf("no commit observed:\n%s", after.text)
	}
	if after.value("troupe_store_size_bytes") <= 0 {
		t.Fatalf("the store has no size:\n%s", after.text)
	}
	if _, ok := after.families["troupe_store_wal_size_bytes"]; !ok {
		t.Fatalf("no WAL size:\n%s", after.text)
	}

	b := d.dialACP(t, "browser")
	replayed, _ := b.Attach(map[string]any{"sessionId": sid, "historyPolicy": "full"})
	if len(replayed) == 0 {
		t.Fatal("the attach replayed nothing")
	}
	if got := d.scrape(t).value("troupe_events_replayed_total"); got <= after.value("troupe_events_replayed_total") {
		t.Fatalf("replayed events: %v, before the attach %v", got, after.value("troupe_events_replayed_total"))
	}
}

// The sessions group: a session whose run is under way is busy, with a
// second prompt queued behind it; an idle one is live; a killed one is
// cold.
func TestMetricsSessionsAndQueue(t *testing.T) {
	env, model := llmEnv(t, llmserver.Steps(llmserver.Text("slow "), llmserver.Delay(time.Minute), llmserver.Text("never")),
		llmserver.Steps(llmserver.Text("second")))
	d := startDaemonBinary(t, t.TempDir(), env, append(model, "--approval-mode", "yolo")...)
	a := d.dialACP(t, "editor")
	busy, _ := a.NewSession(t.TempDir())
	idle, _ := a.NewSession(t.TempDir())
	a.Prompt(busy, "first")
	a.Until(func(f acpclient.Frame) bool { return f.IsUpdate("agent_message_chunk") })
	a.Prompt(busy, "second")
	s := d.untilMetric(t, "the second prompt queued", func(s scrape) bool { return s.value("troupe_queued_prompts") == 1 })
	testkit.Equal(t, s.value("troupe_sessions", "state", "busy"), 1.0)
	testkit.Equal(t, s.value("troupe_sessions", "state", "live"), 1.0)
	testkit.Equal(t, s.value("troupe_sessions", "state", "cold"), 0.0)

	testkit.Equal(t, d.do(t, http.MethodPost, "/v1/sessions/"+idle+"/kill", nil).StatusCode, http.StatusAccepted)
	s = d.scrape(t)
	testkit.Equal(t, s.value("troupe_sessions", "state", "cold"), 1.0)
	testkit.Equal(t, s.value("troupe_sessions", "state", "live"), 0.0)
}

// The model group: a stream cut mid-reply is retried; each request's first
// chunk is timed, the prompt's first update too; the tokens the reply
// reports are counted by kind.
func TestMetricsModel(t *testing.T) {
	env, model := llmEnv(t, llmserver.Steps(llmserver.Text("Half an ans"), llmserver.Disconnect()),
		llmserver.Steps(llmserver.Text("The whole answer."),
			llmserver.ReportUsage(llmserver.Usage{PromptTokens: 100, CachedTokens: 40, CompletionTokens: 7})))
	d := startDaemonBinary(t, t.TempDir(), env, append(model, "--approval-mode", "yolo", "--retry-delay", "10ms")...)
	a := d.dialACP(t, "editor")
	sid, _ := a.NewSession(t.TempDir())
	pid := a.Prompt(sid, "answer me")
	a.Until(func(f acpclient.Frame) bool { return f.Answers(pid) })

	s := d.scrape(t)
	testkit.Equal(t, s.value("troupe_model_retries_total"), 1.0)
	testkit.Equal(t, s.value("troupe_model_time_to_first_token_seconds"), 2.0)
	testkit.Equal(t, s.value("troupe_prompt_first_update_seconds"), 1.0)
	testkit.Equal(t, s.value("troupe_model_tokens_total", "kind", "input"), 60.0)
	testkit.Equal(t, s.value("troupe_model_tokens_total", "kind", "cache_read"), 40.0)
	testkit.Equal(t, s.value("troupe_model_tokens_total", "kind", "output"), 7.0)
}

// The tools group: a call allowed runs and is counted by its tool and
// outcome with its duration; one denied never runs; both permission
// requests waited and are observed by outcome.
func TestMetricsToolsAndPermissions(t *testing.T) {
	env, model := llmEnv(t, llmserver.Steps(llmserver.ToolCall("c1", "bash", `{"command":"echo allowed"}`)),
		llmserver.Steps(llmserver.ToolCall("c2", "bash", `{"command":"echo denied"}`)),
		llmserver.Steps(llmserver.Text("done")))
	d := startDaemonBinary(t, t.TempDir(), env, model...)
	a := d.dialACP(t, "editor")
	sid, _ := a.NewSession(t.TempDir())
	pid := a.Prompt(sid, "run both")
	asked := a.Until(isPermissionAsk)
	testkit.Equal(t, d.scrape(t).value("troupe_permission_requests_total"), 1.0)
	a.AnswerPermission(asked[len(asked)-1].ID, "allow_once")
	asked = a.Until(isPermissionAsk)
	a.AnswerPermission(asked[len(asked)-1].ID, "reject_once")
	a.Until(func(f acpclient.Frame) bool { return f.Answers(pid) })

	s := d.scrape(t)
	testkit.Equal(t, s.value("troupe_tool_calls_total", "tool", "bash", "outcome", "ok"), 1.0)
	testkit.Equal(t, s.value("troupe_tool_calls_total"), 1.0) // the denied call never ran
	testkit.Equal(t, s.value("troupe_tool_call_duration_seconds", "tool", "bash"), 1.0)
	testkit.Equal(t, s.value("troupe_permission_requests_total"), 2.0)
	testkit.Equal(t, s.value("troupe_permission_wait_seconds", "outcome", "allowed"), 1.0)
	testkit.Equal(t, s.value("troupe_permission_wait_seconds", "outcome", "denied"), 1.0)
}

// The clients group: a WebSocket client counts while connected; a wrong
// token is an auth failure; --metrics-listen with a bare port serves
// /metrics on loopback, without a token.
func TestMetricsClientsAuthAndListener(t *testing.T) {
	d := startDaemonBinary(t, t.TempDir(), nil, "--metrics-listen", ":0") // a bare port: loopback
	var metricsURL string
	testkit.Eventually(t, 20*time.Second, "the metrics listener's line", func() bool {
		_, rest, ok := strings.Cut(d.proc.Stderr(), "troupe daemon: metrics on ")
		metricsURL, _, _ = strings.Cut(rest, " ")
		return ok && strings.HasSuffix(metricsURL, "/metrics")
	})
	if !strings.HasPrefix(metricsURL, "http://127.0.0.1:") {
		t.Fatalf("metrics served on %q, not loopback", metricsURL)
	}
	res, err := http.Get(metricsURL)
	testkit.NoError(t, err)
	s := readScrape(t, res)
	testkit.Equal(t, s.value("troupe_websocket_clients"), 0.0)
	failures := s.value("troupe_auth_failures_total", "reason", "token")

	c := d.dialACP(t, "editor")
	testkit.Equal(t, d.scrape(t).value("troupe_websocket_clients"), 1.0)
	testkit.NoError(t, c.WS.Close())
	d.untilMetric(t, "the client gone", func(s scrape) bool { return s.value("troupe_websocket_clients") == 0 })

	bad := d.doWith(t, http.MethodGet, "/v1/sessions", nil, map[string]string{"Authorization": "Bearer nope"})
	bad.Body.Close()
	testkit.Equal(t, bad.StatusCode, http.StatusUnauthorized)
	testkit.Equal(t, d.scrape(t).value("troupe_auth_failures_total", "reason", "token"), failures+1)
}

// The restarts group: a llama-server killed under a session is started
// again; an external agent that crashed is started again by the next
// prompt; a session that panicked (a troupe_faults binary's injected
// failure) is restarted by its supervisor, counted by its kind, and
// serves again.
func TestMetricsRestarts(t *testing.T) {
	t.Run("llama-server", func(t *testing.T) {
		home := llamaHome(t, []string{"a"}, "--fake-token-delay", "100ms")
		d := startDaemonBinary(t, home, nil, "--provider", "llama", "--model", "a", "--approval-mode", "yolo")
		a := d.dialACP(t, "editor")
		sid, _ := a.NewSession(t.TempDir())
		pid := a.Prompt(sid, strings.Repeat("alpha beta ", 10))
		a.Until(func(f acpclient.Frame) bool { return f.IsUpdate("agent_message_chunk") })
		store, err := persistence.Open(filepath.Join(home, "troupe.db"), persistence.Options{})
		testkit.NoError(t, err)
		defer store.Close()
		recs, err := store.Servers(context.Background())
		testkit.NoError(t, err)
		killed := 0
		for _, r := range recs {
			if r.Name == "a" && r.Running() {
				testkit.NoError(t, syscall.Kill(r.PID, syscall.SIGKILL))
				killed++
			}
		}
		testkit.Equal(t, killed, 1)
		d.untilMetric(t, "the server restarted", func(s scrape) bool { return s.value("troupe_llama_server_restarts_total") == 1 })
		a.Until(func(f acpclient.Frame) bool { return f.Answers(pid) })
	})
	t.Run("agent", func(t *testing.T) {
		home, _ := scriptedAgentHome(t, nil)
		d := startDaemonBinary(t, home, nil)
		a := d.dialACP(t, "editor")
		sid := newAgentSession(t, a, t.TempDir(), "scripted")
		promptTurn(t, a, sid, "say before the crash\ncrash")
		testkit.Equal(t, d.scrape(t).value("troupe_agent_restarts_total"), 0.0)
		_, stop := promptTurn(t, a, sid, "say back again")
		testkit.Equal(t, stop, "end_turn")
		testkit.Equal(t, d.scrape(t).value("troupe_agent_restarts_total"), 1.0)
	})
	t.Run("actor", func(t *testing.T) {
		home := t.TempDir()
		bin := testkit.BuildTroupeTags(t, "troupe_faults")
		p := testkit.Start(t, bin, []string{"TROUPE_FAULT_SESSION_PANIC=*session.CancelRun"},
			"daemon", "--home", home, "--listen", "127.0.0.1:0")
		d := daemonOf(t, binaryDaemon{p}, home)
		a := d.dialACP(t, "editor")
		sid, _ := a.NewSession(t.TempDir())
		testkit.Equal(t, d.scrape(t).value("troupe_actor_restarts_total"), 0.0)
		a.Send(map[string]any{"jsonrpc": "2.0", "method": "session/cancel", "params": map[string]any{"sessionId": sid}})
		s := d.untilMetric(t, "the session restarted", func(s scrape) bool {
			return s.value("troupe_actor_restarts_total", "kind", "session") == 1
		})
		testkit.Equal(t, s.value("troupe_actor_restarts_total"), 1.0)
		var e sessionEntry
		d.call(t, http.MethodGet, "/v1/sessions/"+sid, nil, http.StatusOK, &e)
		testkit.Equal(t, e.Status, "warm")
	})
}
