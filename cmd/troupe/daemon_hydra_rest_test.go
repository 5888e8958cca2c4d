package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/acpclient"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// hydraEntry is the part of a session entry Hydra's clients read.
type hydraEntry struct {
	SessionID string    `json:"sessionId"`
	Status    string    `json:"status"`
	Title     string    `json:"title"`
	UpdatedAt time.Time `json:"updatedAt"`
}

func (d *daemonProc) listed(t *testing.T, query string) map[string]hydraEntry {
	t.Helper()
	var list struct{ Sessions []hydraEntry }
	d.call(t, "GET", "/v1/sessions"+query, nil, http.StatusOK, &list)
	out := map[string]hydraEntry{}
	for _, e := range list.Sessions {
		out[e.SessionID] = e
	}
	return out
}

// Hydra's clients sort and filter on warm (zod refuses another word), and
// ask for ?status=warm when they poll; an unknown status is the whole
// list, as Hydra answers it.
func TestDaemonSessionsStatusWarmAndFilter(t *testing.T) {
	d := startDaemon(t, t.TempDir(), nil)
	warm, cold := d.create(t, t.TempDir()), d.create(t, t.TempDir())
	testkit.Equal(t, d.do(t, "POST", "/v1/sessions/"+cold+"/kill", nil).StatusCode, http.StatusAccepted)

	all := d.listed(t, "")
	testkit.Equal(t, len(all), 2)
	testkit.Equal(t, all[warm].Status, "warm")
	testkit.Equal(t, all[cold].Status, "cold")

	only := d.listed(t, "?status=warm")
	if _, ok := only[warm]; len(only) != 1 || !ok {
		t.Fatalf("?status=warm: %+v", only)
	}
	only = d.listed(t, "?status=cold&includeNonInteractive=true")
	if _, ok := only[cold]; len(only) != 1 || !ok {
		t.Fatalf("?status=cold: %+v", only)
	}
	testkit.Equal(t, len(d.listed(t, "?status=live")), 2)

	var one hydraEntry
	d.call(t, "GET", "/v1/sessions/"+warm, nil, http.StatusOK, &one)
	testkit.Equal(t, one.Status, "warm")
}

// A daemon's restart is no activity: every session's updatedAt is what it
// was, whether the daemon stopped or was killed with a session live.
func TestDaemonRestartKeepsUpdatedAt(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	env, model := llmEnv(t, llmserver.Steps(llmserver.Text("hello")))
	d := startDaemon(t, home, env, model...)
	c := d.dialACP(t, "editor")
	prompted, _ := c.NewSession(work)
	if f := c.WaitAnswer(c.Prompt(prompted, "hi")); f.Error != nil {
		t.Fatalf("prompt: %s", f.Raw)
	}
	idle := d.create(t, work)
	before := d.listed(t, "?includeNonInteractive=1")
	time.Sleep(20 * time.Millisecond) // a bump would show

	d.proc.Signal(syscall.SIGTERM)
	testkit.Equal(t, d.proc.Wait(t, acpWait), 0)
	d = startDaemonBinary(t, home, env, model...) // the binary: killed below
	after := d.listed(t, "?includeNonInteractive=1")
	for _, id := range []string{prompted, idle} {
		if !after[id].UpdatedAt.Equal(before[id].UpdatedAt) {
			t.Fatalf("session %s: updatedAt %s after a stop and start, was %s", id, after[id].UpdatedAt, before[id].UpdatedAt)
		}
	}

	// Woken (attached) and killed with it live, then started again.
	d.dialACP(t, "editor").Attach(map[string]any{"sessionId": prompted, "historyPolicy": "none"})
	d.proc.Kill()
	testkit.Equal(t, d.proc.Wait(t, acpWait), -1)
	d = startDaemon(t, home, env, model...)
	d.dialACP(t, "editor").Attach(map[string]any{"sessionId": prompted, "historyPolicy": "none"})
	after = d.listed(t, "?includeNonInteractive=1")
	for _, id := range []string{prompted, idle} {
		if !after[id].UpdatedAt.Equal(before[id].UpdatedAt) {
			t.Fatalf("session %s: updatedAt %s after a kill and an attach, was %s", id, after[id].UpdatedAt, before[id].UpdatedAt)
		}
	}
}

// An extension's entry carries what Hydra's `extensions list` prints:
// restartCount, startedAt (Unix ms, null while stopped), lastExitCode and
// logPath, the file (where Hydra keeps it) its runs' stdout and stderr
// are appended to.
func TestDaemonExtensionEntryRestartCountStartedAtLogPath(t *testing.T) {
	home := t.TempDir()
	d := startDaemon(t, home, nil)
	type entry struct {
		Status       string `json:"status"`
		PID          int    `json:"pid"`
		RestartCount *int   `json:"restartCount"`
		StartedAt    *int64 `json:"startedAt"`
		LastExitCode *int   `json:"lastExitCode"`
		LogPath      string `json:"logPath"`
	}
	before := time.Now().UnixMilli()
	d.call(t, "POST", "/v1/extensions", map[string]any{"name": "echoer",
		"command": []string{"sh", "-c", "echo out-line; echo err-line >&2; exec sleep 60"}}, http.StatusCreated, nil)
	var e entry
	testkit.Eventually(t, 20*time.Second, "echoer running", func() bool {
		d.call(t, "GET", "/v1/extensions/echoer", nil, http.StatusOK, &e)
		return e.Status == "running" && e.PID != 0
	})
	if e.RestartCount == nil || *e.RestartCount != 0 || e.StartedAt == nil || *e.StartedAt < before ||
		*e.StartedAt > time.Now().UnixMilli() || e.LastExitCode != nil {
		t.Fatalf("running entry: %+v", e)
	}
	testkit.Equal(t, e.LogPath, filepath.Join(home, "extensions", "echoer", "current.log"))
	testkit.Eventually(t, 10*time.Second, "both output lines in the log file", func() bool {
		b, _ := os.ReadFile(e.LogPath)
		return strings.Contains(string(b), "out-line\n") && strings.Contains(string(b), "err-line\n")
	})

	testkit.NoError(t, syscall.Kill(e.PID, syscall.SIGKILL))
	first := e.PID
	testkit.Eventually(t, 20*time.Second, "echoer started again", func() bool {
		d.call(t, "GET", "/v1/extensions/echoer", nil, http.StatusOK, &e)
		return e.Status == "running" && e.PID != 0 && e.PID != first
	})
	if *e.RestartCount != 1 || e.LastExitCode == nil || *e.LastExitCode != -1 {
		t.Fatalf("restarted entry: %+v", e)
	}
	d.call(t, "POST", "/v1/extensions/echoer/stop", nil, http.StatusOK, &e)
	if e.StartedAt != nil || e.Status != "stopped" {
		t.Fatalf("stopped entry: %+v", e)
	}
}

// The transcript honours Hydra's query: tool calls only with ?tools=1,
// thinking only with ?thoughts=1, turns windowed by ?last, ?from/?to
// (negative from the end) and ?since (Unix ms), a slice saying so; a
// malformed number is a 400.
func TestDaemonTranscriptQueryOptions(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	env, model := llmEnv(t,
		llmserver.Steps(llmserver.Thinking("pondering turn one"), llmserver.ToolCall("c1", "read", `{"path":"notes.txt"}`)),
		llmserver.Steps(llmserver.Text("answer one")),
		llmserver.Steps(llmserver.Text("answer two")),
		llmserver.Steps(llmserver.Text("answer three")),
	)
	testkit.NoError(t, os.WriteFile(filepath.Join(work, "notes.txt"), []byte("tool-ran"), 0o600))
	d := startDaemon(t, home, env, model...)
	c := d.dialACP(t, "editor")
	sid, _ := c.NewSession(work)
	var mid int64
	for i, p := range []string{"prompt one", "prompt two", "prompt three"} {
		if i == 2 {
			time.Sleep(20 * time.Millisecond)
			mid = time.Now().UnixMilli()
			time.Sleep(20 * time.Millisecond)
		}
		if f := c.WaitAnswer(c.Prompt(sid, p)); f.Error != nil {
			t.Fatalf("prompt %q: %s", p, f.Raw)
		}
	}
	md := func(query string) string {
		t.Helper()
		res := d.do(t, "GET", "/v1/sessions/"+sid+"/transcript"+query, nil)
		b, _ := io.ReadAll(res.Body)
		testkit.Equal(t, res.StatusCode, http.StatusOK)
		return string(b)
	}
	has := func(query string, want, not []string) {
		t.Helper()
		got := md(query)
		for _, w := range want {
			if !strings.Contains(got, w) {
				t.Fatalf("transcript%s lacks %q:\n%s", query, w, got)
			}
		}
		// The heading is the session's title, its first prompt's line:
		// what a window leaves out is looked for below it.
		body := got
		if i := strings.Index(got, "_\n\n"); i >= 0 {
			body = got[i:]
		}
		for _, n := range not {
			if strings.Contains(body, n) {
				t.Fatalf("transcript%s shows %q:\n%s", query, n, got)
			}
		}
	}
	all := []string{"prompt one", "answer one", "prompt two", "answer two", "prompt three", "answer three"}
	has("", all, []string{"### Tool", "tool-ran", "pondering", "Showing turns"})
	has("?tools=1", append(all, "### Tool `read`", "tool-ran"), []string{"pondering"})
	has("?thoughts=true", append(all, "pondering turn one"), []string{"### Tool"})
	has("?last=1", []string{"_Showing turns 3-3 of 3._", "prompt three", "answer three"}, []string{"prompt two", "answer one"})
	has("?from=-2", []string{"_Showing turns 2-3 of 3._", "prompt two", "prompt three"}, []string{"prompt one"})
	has("?from=1&to=1&tools=yes", []string{"_Showing turns 1-1 of 3._", "prompt one", "tool-ran", "answer one"}, []string{"prompt two"})
	has("?to=-2", []string{"_Showing turns 1-2 of 3._", "prompt one", "answer two"}, []string{"prompt three"})
	has(fmt.Sprintf("?since=%d", mid), []string{"_Showing turns 3-3 of 3._", "prompt three"}, []string{"prompt two"})
	has("?last=10", all, []string{"Showing turns"})
	for _, bad := range []string{"?last=x", "?from=one", "?since=yesterday"} {
		wantError(t, d.do(t, "GET", "/v1/sessions/"+sid+"/transcript"+bad, nil), http.StatusBadRequest)
	}
}

// A session is titled by the first line of the first prompt a person
// sends it, as Hydra titles one, and that prompt makes it interactive; a
// title it already has stays. A session hydra's `cat` (clientInfo
// hydra-acp-cat) makes is not interactive: no title from its prompts,
// hidden from the default list.
func TestDaemonSessionTitledAndInteractiveFromFirstPrompt(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	env, model := llmEnv(t, llmserver.Steps(llmserver.Text("one")), llmserver.Steps(llmserver.Text("two")), llmserver.Steps(llmserver.Text("five")),
		llmserver.Steps(llmserver.Text("three")), llmserver.Steps(llmserver.Text("four")))
	d := startDaemon(t, home, env, model...)
	type entry struct {
		Title       string `json:"title"`
		Interactive *bool  `json:"interactive"`
	}
	get := func(id string) entry {
		t.Helper()
		var e entry
		d.call(t, "GET", "/v1/sessions/"+id, nil, http.StatusOK, &e)
		return e
	}
	c := d.dialACP(t, "editor")
	sid, _ := c.NewSession(work)
	if e := get(sid); e.Title != "" || e.Interactive != nil {
		t.Fatalf("before any prompt: %+v", e)
	}
	if f := c.WaitAnswer(c.Prompt(sid, "\n  fix the flaky test  \nit fails on CI only")); f.Error != nil {
		t.Fatalf("prompt: %s", f.Raw)
	}
	if e := get(sid); e.Title != "fix the flaky test" || e.Interactive == nil || !*e.Interactive {
		t.Fatalf("after the first prompt: %+v", e)
	}
	if f := c.WaitAnswer(c.Prompt(sid, "and the other one")); f.Error != nil {
		t.Fatalf("prompt: %s", f.Raw)
	}
	testkit.Equal(t, get(sid).Title, "fix the flaky test")
	testkit.Equal(t, d.listed(t, "")[sid].Title, "fix the flaky test")

	var named struct{ SessionID string }
	testkit.NoError(t, json.Unmarshal(c.WaitAnswer(c.Call("session/new", map[string]any{"cwd": work, "mcpServers": []any{},
		"_meta": map[string]any{"hydra-acp": map[string]any{"title": "given"}}})).Result, &named))
	if f := c.WaitAnswer(c.Prompt(named.SessionID, "a prompt")); f.Error != nil {
		t.Fatalf("prompt: %s", f.Raw)
	}
	testkit.Equal(t, get(named.SessionID).Title, "given")

	cat := d.dialACP(t, "hydra-acp-cat")
	piped, _ := cat.NewSession(work)
	if f := cat.WaitAnswer(catPrompt(cat, piped, "summarise this log")); f.Error != nil {
		t.Fatalf("prompt: %s", f.Raw)
	}
	if e := get(piped); e.Title != "" || e.Interactive == nil || *e.Interactive {
		t.Fatalf("hydra cat's session: %+v", e)
	}
	if _, ok := d.listed(t, "")[piped]; ok {
		t.Fatal("hydra cat's session is in the default list")
	}
	if _, ok := d.listed(t, "?includeNonInteractive=1")[piped]; !ok {
		t.Fatal("hydra cat's session is not listed with includeNonInteractive")
	}
	// A person who takes it up (attaches and prompts) makes it
	// interactive and titles it, as Hydra promotes any session on a
	// prompt that is not ancillary.
	c.WaitAnswer(c.Call("session/attach", map[string]any{"sessionId": piped, "historyPolicy": "none"}))
	if f := c.WaitAnswer(c.Prompt(piped, "now look at the errors")); f.Error != nil {
		t.Fatalf("prompt: %s", f.Raw)
	}
	if e := get(piped); e.Title != "now look at the errors" || e.Interactive == nil || !*e.Interactive {
		t.Fatalf("hydra cat's session after a person's prompt: %+v", e)
	}
}

// catPrompt sends a prompt as Hydra's cat does: ancillary.
func catPrompt(c *acpclient.Client, sid, text string) int {
	return c.Call("session/prompt", map[string]any{"sessionId": sid,
		"prompt": []any{map[string]any{"type": "text", "text": text}},
		"_meta":  map[string]any{"hydra-acp": map[string]any{"ancillary": true}}})
}

// POST /v1/sessions/collect deletes cold sessions never made interactive,
// oldest first, as `hydra sessions collect` asks (selection explicit:
// only those marked not interactive; maxAgeDays; limit, the rest
// deferred); interactive and warm sessions stay.
func TestDaemonSessionsCollect(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	env, model := llmEnv(t, llmserver.Steps(llmserver.Text("hi")))
	d := startDaemon(t, home, env, model...)
	kill := func(id string) {
		t.Helper()
		testkit.Equal(t, d.do(t, "POST", "/v1/sessions/"+id+"/kill", nil).StatusCode, http.StatusAccepted)
	}
	undecided := d.create(t, work)
	kill(undecided)
	c := d.dialACP(t, "editor")
	var piped struct{ SessionID string }
	testkit.NoError(t, json.Unmarshal(c.WaitAnswer(c.Call("session/new", map[string]any{"cwd": work, "mcpServers": []any{},
		"_meta": map[string]any{"hydra-acp": map[string]any{"interactive": false}}})).Result, &piped))
	kill(piped.SessionID)
	talked, _ := c.NewSession(work)
	if f := c.WaitAnswer(c.Prompt(talked, "hello")); f.Error != nil {
		t.Fatalf("prompt: %s", f.Raw)
	}
	kill(talked)
	warm := d.create(t, work)

	type result struct {
		Considered, Deleted, Failed, Deferred int
		OldestLastUsedMs                      *int64
	}
	var res result
	d.call(t, "POST", "/v1/sessions/collect", map[string]any{"maxAgeDays": 1}, http.StatusOK, &res)
	testkit.Equal(t, res, result{})
	d.call(t, "POST", "/v1/sessions/collect", map[string]any{"maxAgeDays": 0, "selection": "explicit"}, http.StatusOK, &res)
	if res.Considered != 1 || res.Deleted != 1 || res.Failed != 0 || res.Deferred != 0 || res.OldestLastUsedMs == nil {
		t.Fatalf("explicit: %+v", res)
	}
	left := d.listed(t, "?includeNonInteractive=1")
	if _, ok := left[piped.SessionID]; ok || len(left) != 3 {
		t.Fatalf("after explicit: %v", left)
	}

	second := d.create(t, work)
	kill(second)
	d.call(t, "POST", "/v1/sessions/collect", map[string]any{"maxAgeDays": 0, "limit": 1}, http.StatusOK, &res)
	if res.Considered != 2 || res.Deleted != 1 || res.Deferred != 1 || res.OldestLastUsedMs == nil {
		t.Fatalf("limit 1: %+v", res)
	}
	left = d.listed(t, "?includeNonInteractive=1")
	if _, ok := left[undecided]; ok { // the older of the two went first
		t.Fatalf("after limit 1: %v", left)
	}
	d.call(t, "POST", "/v1/sessions/collect", map[string]any{}, http.StatusOK, &res)
	testkit.Equal(t, res.Deleted, 1)
	left = d.listed(t, "?includeNonInteractive=1")
	_, hasTalked := left[talked]
	_, hasWarm := left[warm]
	if len(left) != 2 || !hasTalked || !hasWarm {
		t.Fatalf("what collect leaves: %v", left)
	}
	wantError(t, d.do(t, "POST", "/v1/sessions/collect", "{"), http.StatusBadRequest)
}

// GET /v1/sessions/:id/compact/status answers what Hydra's TUI reads on
// attach: shouldCompact from the context the last step used out of the
// model's window (currentUsage {used, size}), inFlight; POST …/compact
// starts one (202), which the status then counts.
func TestDaemonCompactStatus(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	env, model := llmEnv(t,
		llmserver.Steps(llmserver.Text("small"), llmserver.ReportUsage(llmserver.Usage{PromptTokens: 1000, CompletionTokens: 10})),
		llmserver.Steps(llmserver.Text("big"), llmserver.ReportUsage(llmserver.Usage{PromptTokens: 120000, CompletionTokens: 10})),
		llmserver.Steps(llmserver.Text("the summary")),
	)
	d := startDaemon(t, home, env, model...)
	type status struct {
		InFlight      bool   `json:"inFlight"`
		ShouldCompact *bool  `json:"shouldCompact"`
		ApproxTokens  *int64 `json:"approxTokens"`
		CurrentUsage  *struct {
			Used, Size int64
		} `json:"currentUsage"`
		Compactions int `json:"compactions"`
	}
	c := d.dialACP(t, "editor")
	sid, _ := c.NewSession(work)
	var st status
	d.call(t, "GET", "/v1/sessions/"+sid+"/compact/status", nil, http.StatusOK, &st)
	if st.ShouldCompact == nil || *st.ShouldCompact || st.CurrentUsage != nil || st.InFlight {
		t.Fatalf("before any turn: %+v", st)
	}
	// Long enough for a compaction to have something to summarise.
	if f := c.WaitAnswer(c.Prompt(sid, "one "+strings.Repeat("lorem ipsum ", 12000))); f.Error != nil {
		t.Fatalf("prompt: %s", f.Raw)
	}
	d.call(t, "GET", "/v1/sessions/"+sid+"/compact/status", nil, http.StatusOK, &st)
	if *st.ShouldCompact || st.CurrentUsage == nil || st.CurrentUsage.Used != 1010 || st.CurrentUsage.Size != 128000 || *st.ApproxTokens != 1010 {
		t.Fatalf("after a small turn: %+v %+v", st, st.CurrentUsage)
	}
	if f := c.WaitAnswer(c.Prompt(sid, "two")); f.Error != nil {
		t.Fatalf("prompt: %s", f.Raw)
	}
	d.call(t, "GET", "/v1/sessions/"+sid+"/compact/status", nil, http.StatusOK, &st)
	if !*st.ShouldCompact || st.CurrentUsage.Used != 120010 {
		t.Fatalf("past the threshold: %+v %+v", st, st.CurrentUsage)
	}

	// An attached client hears the compaction as Hydra's TUI reads it:
	// hydra_compaction started, then swapped with the session's title.
	w := d.dialACP(t, "watcher")
	w.Attach(map[string]any{"sessionId": sid, "historyPolicy": "none"})
	var sched struct{ Scheduled bool }
	d.call(t, "POST", "/v1/sessions/"+sid+"/compact", nil, http.StatusAccepted, &sched)
	testkit.Equal(t, sched.Scheduled, true)
	var phases []string
	for _, f := range w.Until(func(f acpclient.Frame) bool {
		return f.IsUpdate("hydra_compaction") && strings.Contains(string(f.Params), `"phase":"swapped"`)
	}) {
		if !f.IsUpdate("hydra_compaction") {
			continue
		}
		var u struct {
			Update struct {
				Phase       string `json:"phase"`
				RequestedAt int64  `json:"requestedAt"`
				Title       string `json:"title"`
			} `json:"update"`
		}
		f.DecodeParams(t, &u)
		phases = append(phases, u.Update.Phase)
		if u.Update.Phase == "started" && u.Update.RequestedAt == 0 {
			t.Errorf("started without requestedAt: %s", f.Raw)
		}
		if u.Update.Phase == "swapped" && !strings.HasPrefix(u.Update.Title, "one lorem ipsum") {
			t.Errorf("swapped names title %q, want the session's", u.Update.Title)
		}
	}
	testkit.Equal(t, strings.Join(phases, ","), "started,swapped")
	testkit.Eventually(t, 20*time.Second, "the compaction counted", func() bool {
		st = status{}
		d.call(t, "GET", "/v1/sessions/"+sid+"/compact/status", nil, http.StatusOK, &st)
		return st.Compactions == 1 && !st.InFlight
	})
	if *st.ShouldCompact || st.CurrentUsage != nil {
		t.Fatalf("after compacting: %+v", st)
	}
	wantError(t, d.do(t, "GET", "/v1/sessions/nope/compact/status", nil), http.StatusNotFound)
	wantError(t, d.do(t, "POST", "/v1/sessions/nope/compact", nil), http.StatusNotFound)
}

// A session that is not interactive (hydra's cat's) goes cold once its
// last client leaves, not after the idle timeout; an interactive one
// stays warm.
func TestDaemonNonInteractiveSessionGoesColdWhenLeft(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	env, model := llmEnv(t, llmserver.Steps(llmserver.Text("one")), llmserver.Steps(llmserver.Text("two")))
	d := startDaemon(t, home, env, model...)
	cat := d.dialACP(t, "hydra-acp-cat")
	piped, _ := cat.NewSession(work)
	editor := d.dialACP(t, "editor")
	talked, _ := editor.NewSession(work)
	if f := cat.WaitAnswer(catPrompt(cat, piped, "summarise")); f.Error != nil {
		t.Fatalf("prompt: %s", f.Raw)
	}
	if f := editor.WaitAnswer(editor.Prompt(talked, "hello")); f.Error != nil {
		t.Fatalf("prompt: %s", f.Raw)
	}
	testkit.Equal(t, d.listed(t, "?includeNonInteractive=1")[piped].Status, "warm")
	cat.WS.Close()
	editor.WS.Close()
	testkit.Eventually(t, 10*time.Second, "cat's session cold", func() bool {
		return d.listed(t, "?includeNonInteractive=1")[piped].Status == "cold"
	})
	testkit.Equal(t, d.listed(t, "")[talked].Status, "warm")
}

// A prompt marked _meta["hydra-acp"].ancillary (Hydra's cat into a
// session, the TUI's /btw side question) is machine traffic, as Hydra
// treats it: it neither titles an undecided session nor makes it
// interactive; the first prompt a person sends afterwards does both.
func TestDaemonAncillaryPromptPromotesNothing(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	env, model := llmEnv(t, llmserver.Steps(llmserver.Text("one")), llmserver.Steps(llmserver.Text("two")))
	d := startDaemon(t, home, env, model...)
	var e struct {
		Title       string `json:"title"`
		Interactive *bool  `json:"interactive"`
	}
	c := d.dialACP(t, "editor")
	sid, _ := c.NewSession(work)
	id := c.Call("session/prompt", map[string]any{"sessionId": sid,
		"prompt": []any{map[string]any{"type": "text", "text": "Build 12847 failed"}},
		"_meta":  map[string]any{"hydra-acp": map[string]any{"ancillary": true}}})
	if f := c.WaitAnswer(id); f.Error != nil {
		t.Fatalf("ancillary prompt: %s", f.Raw)
	}
	d.call(t, "GET", "/v1/sessions/"+sid, nil, http.StatusOK, &e)
	if e.Title != "" || e.Interactive != nil {
		t.Fatalf("after an ancillary prompt the session says title %q, interactive %v; want neither", e.Title, e.Interactive)
	}
	if f := c.WaitAnswer(c.Prompt(sid, "fix the build")); f.Error != nil {
		t.Fatalf("prompt: %s", f.Raw)
	}
	d.call(t, "GET", "/v1/sessions/"+sid, nil, http.StatusOK, &e)
	if e.Title != "fix the build" || e.Interactive == nil || !*e.Interactive {
		t.Fatalf("after a person's prompt: title %q, interactive %v", e.Title, e.Interactive)
	}
}

// A session entry's currentUsage names the session's spend as the
// reference does, costAmount and costCurrency (what Hydra's CLI shows in
// its COST column), beside troupe's token counts; a session that spent
// nothing (a model without pricing) has neither.
func TestDaemonEntryCurrentUsageCost(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	srv := llmserver.New(t, llmserver.Script{Model: "priced", Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.Text("spent"), llmserver.Step{Usage: &llmserver.Usage{PromptTokens: 1000, CompletionTokens: 500}}),
	}})
	yml := "providers:\n  local:\n    base_url: " + srv.URL() + "/v1\n    models:\n      - {id: priced, context_window: 8192, cost: {input: 3, output: 15}}\n"
	testkit.NoError(t, os.WriteFile(filepath.Join(home, "models.yml"), []byte(yml), 0o600))
	d := startDaemon(t, home, []string{"OPENAI_BASE_URL=", "OPENAI_API_KEY="}, "--provider", "local", "--model", "priced")
	type entry struct {
		CurrentUsage map[string]any `json:"currentUsage"`
	}
	c := d.dialACP(t, "editor")
	sid, _ := c.NewSession(work)
	var e entry
	d.call(t, "GET", "/v1/sessions/"+sid, nil, http.StatusOK, &e)
	if _, has := e.CurrentUsage["costAmount"]; has {
		t.Fatalf("before any spend: currentUsage %v", e.CurrentUsage)
	}
	if f := c.WaitAnswer(c.Prompt(sid, "spend")); f.Error != nil {
		t.Fatalf("prompt: %s", f.Raw)
	}
	d.call(t, "GET", "/v1/sessions/"+sid, nil, http.StatusOK, &e)
	amount, _ := e.CurrentUsage["costAmount"].(float64)
	if amount <= 0 || e.CurrentUsage["costCurrency"] != "USD" || e.CurrentUsage["cost"] != amount {
		t.Fatalf("after a priced turn: currentUsage %v, want costAmount (the cost) in USD", e.CurrentUsage)
	}
}

// A fork is not interactive until a person prompts it, as Hydra's forks
// are: the TUI's /btw side question (a fork prompted with ancillary
// prompts) stays out of default lists, and a fork a person goes on in
// joins them.
func TestDaemonForkInteractiveOnlyOncePrompted(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	env, model := llmEnv(t, llmserver.Steps(llmserver.Text("one")), llmserver.Steps(llmserver.Text("two")), llmserver.Steps(llmserver.Text("three")))
	d := startDaemon(t, home, env, model...)
	c := d.dialACP(t, "editor")
	sid, _ := c.NewSession(work)
	if f := c.WaitAnswer(c.Prompt(sid, "the main line")); f.Error != nil {
		t.Fatalf("prompt: %s", f.Raw)
	}
	var fork struct {
		SessionID string `json:"sessionId"`
	}
	c.WaitAnswer(c.Call("hydra-acp/session/fork", map[string]any{"sessionId": sid})).Decode(t, &fork)
	interactive := func() *bool {
		var e struct {
			Interactive *bool `json:"interactive"`
		}
		d.call(t, "GET", "/v1/sessions/"+fork.SessionID, nil, http.StatusOK, &e)
		return e.Interactive
	}
	if i := interactive(); i == nil || *i {
		t.Fatalf("a new fork says interactive %v, want false", i)
	}
	if _, listed := d.listed(t, "")[fork.SessionID]; listed {
		t.Fatal("a fork nobody prompted is in the default list")
	}
	c.WaitAnswer(c.Call("session/attach", map[string]any{"sessionId": fork.SessionID, "historyPolicy": "none"}))
	if f := c.WaitAnswer(catPrompt(c, fork.SessionID, "a side question")); f.Error != nil {
		t.Fatalf("ancillary prompt: %s", f.Raw)
	}
	if i := interactive(); i == nil || *i {
		t.Fatalf("after an ancillary prompt the fork says interactive %v, want false", i)
	}
	if f := c.WaitAnswer(c.Prompt(fork.SessionID, "go on here")); f.Error != nil {
		t.Fatalf("prompt: %s", f.Raw)
	}
	if i := interactive(); i == nil || !*i {
		t.Fatalf("after a person's prompt the fork says interactive %v, want true", i)
	}
	if _, listed := d.listed(t, "")[fork.SessionID]; !listed {
		t.Fatal("a fork a person prompted is not in the default list")
	}
}
