package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/troupehq/troupe/persistence"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/acpclient"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// An MCP server's notifications/progress during a call reach the client
// as the call's progress (tool.progress → tool_call_update content) while
// it runs, before its result.
func TestMCPProgressShownThroughACP(t *testing.T) {
	env, model := llmEnv(t,
		llmserver.Steps(llmserver.ToolCall("c1", "t__progress", `{"steps":3,"ms":200}`)),
		llmserver.Steps(llmserver.Text("done")))
	a := startACPStdio(t, t.TempDir(), env, model)
	sid := a.newSession(mcpServer(t))
	fs, stop := a.promptToEnd(sid, "show progress")
	testkit.Equal(t, stop, "end_turn")
	var running []string
	final := ""
	for _, u := range toolUpdates(t, fs, "c1") {
		switch u.status {
		case "in_progress":
			if u.text != "" {
				running = append(running, u.text)
			}
		case "completed":
			final = u.text
		}
	}
	// Each update is the cumulative progress so far. A client behind may
	// be sent fewer, never other ones: the call's updates are coalesced to
	// its latest for a slow reader, so under load the last step's progress
	// can be folded into the completed update that follows it.
	all := "[1/3] step 1\n[2/3] step 2\n[3/3] step 3"
	if len(running) == 0 {
		t.Fatalf("no progress shown while the call ran, want cumulative prefixes of %q", all)
	}
	for i, text := range running {
		if !strings.HasPrefix(all, text) || (i > 0 && len(text) <= len(running[i-1])) {
			t.Fatalf("progress shown %q: not cumulative", running)
		}
	}
	testkit.Equal(t, final, "done after 3 steps")
}

// After the server's tools/list_changed (add_tool), the model's very next
// request offers the new tool, and calling it reaches the server.
func TestMCPToolListChangedOffersTheNewTool(t *testing.T) {
	srv := llmserver.New(t, llmserver.Script{Model: "tiny", Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.ToolCall("c1", "t__add_tool", `{"name":"fresh"}`)),
		llmserver.Steps(llmserver.ToolCall("c2", "t__fresh", `{}`)),
		llmserver.Steps(llmserver.Text("used it")),
	}})
	env := []string{"OPENAI_BASE_URL=" + srv.URL() + "/v1", "OPENAI_API_KEY="}
	a := startACPStdio(t, t.TempDir(), env, []string{"--provider", "openai", "--model", "tiny"})
	sid := a.newSession(mcpServer(t))
	fs, stop := a.promptToEnd(sid, "grow the server")
	testkit.Equal(t, stop, "end_turn")

	reqs := srv.ChatRequests()
	if len(reqs) != 3 {
		t.Fatalf("%d chat requests, want 3", len(reqs))
	}
	if !slices.Contains(offered(reqs[0]), "t__add_tool") || slices.Contains(offered(reqs[0]), "t__fresh") {
		t.Fatalf("first request offered %v: want t__add_tool, not t__fresh yet\n%s", offered(reqs[0]), reqs[0].Body)
	}
	if !slices.Contains(offered(reqs[1]), "t__fresh") {
		t.Fatalf("the request after list_changed offered %v, without t__fresh", offered(reqs[1]))
	}
	us := toolUpdates(t, fs, "c2")
	if len(us) == 0 || us[len(us)-1].status != "completed" || us[len(us)-1].text != "added:fresh" {
		t.Fatalf("t__fresh call: %+v", us)
	}
}

var restartDelay = regexp.MustCompile(`mcp server restart scheduled.*delay=(\S+)`)

// An MCP server killed with SIGKILL mid-session is started again after a
// delay that grows with each kill, and a tool call after that succeeds.
func TestMCPServerKilledIsRestartedWithBackoff(t *testing.T) {
	env, model := llmEnv(t,
		llmserver.Steps(llmserver.ToolCall("c1", "t__echo", `{"text":"back"}`)),
		llmserver.Steps(llmserver.Text("it answered")))
	home, pids := t.TempDir(), t.TempDir()
	a := startACPStdio(t, home, env, model)
	sid := a.newSession(mcpServer(t, "-pids", pids))

	// starts lists the server's starts: pid and start time.
	starts := func() map[int]time.Time {
		out := map[int]time.Time{}
		ents, _ := os.ReadDir(pids)
		for _, e := range ents {
			pid, err := strconv.Atoi(e.Name())
			b, rerr := os.ReadFile(filepath.Join(pids, e.Name()))
			ns, perr := strconv.ParseInt(string(b), 10, 64)
			if err == nil && rerr == nil && perr == nil {
				out[pid] = time.Unix(0, ns)
			}
		}
		return out
	}
	connected := func(n int) func() bool {
		return func() bool { return strings.Count(a.p.Stderr(), "mcp server connected") >= n }
	}
	testkit.Eventually(t, 30*time.Second, "the server connected", connected(1))
	var gaps []time.Duration
	for kill := 1; kill <= 3; kill++ {
		var current int
		for pid := range starts() {
			if err := syscall.Kill(pid, 0); err == nil {
				current = pid
			}
		}
		killed := time.Now()
		testkit.NoError(t, syscall.Kill(current, syscall.SIGKILL))
		testkit.Eventually(t, 30*time.Second, "the server connected again", connected(kill+1))
		if n := len(starts()); n != kill+1 {
			t.Fatalf("after kill %d the server was started %d times", kill, n)
		}
		latest := time.Time{}
		for _, at := range starts() {
			if at.After(latest) {
				latest = at
			}
		}
		gaps = append(gaps, latest.Sub(killed))
	}

	// The delays troupe chose grow, and each restart waited at least that.
	var delays []time.Duration
	for _, m := range restartDelay.FindAllStringSubmatch(a.p.Stderr(), -1) {
		d, err := time.ParseDuration(m[1])
		testkit.NoError(t, err)
		delays = append(delays, d)
	}
	if len(delays) != 3 || delays[0] >= delays[1] || delays[1] >= delays[2] {
		t.Fatalf("restart delays %v, want three, growing; stderr:\n%s", delays, a.p.Stderr())
	}
	t.Logf("restart delays %v; kill to the new process's start %v", delays, gaps)
	for i := range gaps {
		if gaps[i] < delays[i] {
			t.Errorf("restart %d came %s after the kill, before its delay %s", i+1, gaps[i], delays[i])
		}
	}

	fs, stop := a.promptToEnd(sid, "call it")
	testkit.Equal(t, stop, "end_turn")
	us := toolUpdates(t, fs, "c1")
	if len(us) == 0 || us[len(us)-1].status != "completed" || us[len(us)-1].text != "echo:back" {
		t.Fatalf("call after the restarts: %+v", us)
	}
}

// A server whose command does not exist, and one that refuses to start,
// are each reported once (one log line, one mcp.status event) however many
// turns run, and the turns complete without them.
func TestMCPServerNeverUpReportedOnce(t *testing.T) {
	env, model := llmEnv(t, llmserver.Steps(llmserver.Text("one")), llmserver.Steps(llmserver.Text("two")))
	home := t.TempDir()
	a := startACPStdio(t, home, env, model)
	refusing := mcpServer(t, "-refuse")
	refusing["name"] = "refusing"
	sid := a.newSession(
		map[string]any{"name": "gone", "command": filepath.Join(t.TempDir(), "no-such-mcp-server"), "args": []string{}, "env": []any{}},
		refusing)
	for _, text := range []string{"first", "second"} {
		fs, stop := a.promptToEnd(sid, text)
		testkit.Equal(t, stop, "end_turn")
		if !strings.Contains(acpclient.Chunks(t, fs), map[string]string{"first": "one", "second": "two"}[text]) {
			t.Fatalf("turn %q answered %q", text, acpclient.Chunks(t, fs))
		}
	}

	store, err := persistence.Open(filepath.Join(home, "troupe.db"), persistence.Options{})
	testkit.NoError(t, err)
	defer store.Close()
	reported := map[string][]event.MCPStatusPayload{}
	testkit.NoError(t, store.Load(context.Background(), sid, 0, func(e event.Event) error {
		if e.Kind == event.MCPStatus {
			var p event.MCPStatusPayload
			testkit.NoError(t, json.Unmarshal(e.Payload, &p))
			reported[p.Server] = append(reported[p.Server], p)
		}
		return nil
	}))
	for _, name := range []string{"gone", "refusing"} {
		ps := reported[name]
		if len(ps) != 1 || ps[0].Status != event.MCPStatusUnavailable || ps[0].Error == "" {
			t.Errorf("mcp.status events of %s: %+v, want one unavailable with its error", name, ps)
		}
	}
	if !strings.Contains(reported["refusing"][0].Error, "refusing to start") {
		t.Errorf("the refusing server's report lacks its stderr: %q", reported["refusing"][0].Error)
	}
	stderr := a.p.Stderr()
	for _, name := range []string{"gone", "refusing"} {
		n := 0
		for _, line := range strings.Split(stderr, "\n") {
			if strings.Contains(line, "mcp server unavailable") && strings.Contains(line, name) {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%d log lines report %s unavailable, want 1; stderr:\n%s", n, name, stderr)
		}
	}
}
