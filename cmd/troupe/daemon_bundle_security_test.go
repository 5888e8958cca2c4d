package main

import (
	"database/sql"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/acpclient"
	"github.com/troupehq/troupe/testkit/llmserver"

	_ "github.com/mattn/go-sqlite3" // to read what an import left in the store
)

// hostileBundle is testdata/hostile-bundle.json with its placeholders
// filled in: a bundle whose session.created names a stdio MCP server that
// touches a marker, yolo mode and directories it should not get, and
// whose log ends inside a run with a bash call open (its process group
// the victim's) and a prompt still queued.
func hostileBundle(t *testing.T, vars map[string]string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "hostile-bundle.json"))
	testkit.NoError(t, err)
	s := string(raw)
	for k, v := range vars {
		s = strings.ReplaceAll(s, "{{"+k+"}}", v)
	}
	if strings.Contains(s, "{{") {
		t.Fatalf("hostile bundle has unfilled placeholders:\n%s", s)
	}
	return s
}

// processesNaming lists the pids whose command line contains s.
func processesNaming(t *testing.T, s string) []int {
	t.Helper()
	dirs, err := os.ReadDir("/proc")
	testkit.NoError(t, err)
	var out []int
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", d.Name(), "cmdline"))
		if err == nil && strings.Contains(string(b), s) {
			out = append(out, pid)
		}
	}
	return out
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// markerServer is an mcpServers list whose one stdio server touches
// marker as it starts: what a bundle's server would do to its importer.
func markerServer(marker string) []any {
	return []any{map[string]any{"name": "marker", "command": "sh", "args": []string{"-c", "touch " + marker + "; exec sleep 60"}, "env": []any{}}}
}

// victim is a process group of its own, named in the bundle's
// tool.process: nothing the import does may signal it.
type victim struct {
	cmd  *exec.Cmd
	done chan struct{}
}

func startVictim(t *testing.T) *victim {
	t.Helper()
	cmd := exec.Command("sleep", "300")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	testkit.NoError(t, cmd.Start())
	v := &victim{cmd: cmd, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		close(v.done)
	}()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-v.done
	})
	return v
}

func (v *victim) alive() bool {
	select {
	case <-v.done:
		return false
	default:
		return true
	}
}

// A bundle is data: importing it, opening the session it became (REST
// history, ACP session/load and session/attach) and restarting the daemon
// start none of its MCP servers, resume none of its runs, run none of its
// queued prompts and signal nothing it names. Its in-flight run shows as
// interrupted; its yolo mode is the daemon's default mode. A control
// session given the same kind of server in the same daemon shows the
// server would have started by the time the checks run.
func TestDaemonImportedBundleStartsNothing(t *testing.T) {
	home, work, marks := t.TempDir(), t.TempDir(), t.TempDir()
	mcpMarker, toolMarker := filepath.Join(marks, "mcp-started"), filepath.Join(marks, "bash-ran")
	srv := llmserver.New(t, llmserver.Script{Model: "tiny", Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.ToolCall("call-2", "bash", toolArgs(t, map[string]string{"command": "touch " + toolMarker}))),
		llmserver.Steps(llmserver.Text("left it alone")),
	}})
	env, model := []string{"OPENAI_BASE_URL=" + srv.URL() + "/v1", "OPENAI_API_KEY="}, []string{"--provider", "openai", "--model", "tiny"}
	d := startDaemon(t, home, env, model...)
	v := startVictim(t)
	bundle := hostileBundle(t, map[string]string{"LINEAGE": "lineage-hostile", "CWD": work, "MCP_MARKER": mcpMarker,
		"TOOL_MARKER": toolMarker, "VICTIM_PGID": strconv.Itoa(v.cmd.Process.Pid)})

	var imp struct {
		SessionID string
		Sanitized struct {
			MCPServers, AdditionalDirs []string
			ApprovalMode, CrashPolicy  string
		}
		InterruptedRunID string
		CancelledPrompts []string
	}
	d.call(t, "POST", "/v1/sessions/import", `{"bundle":`+bundle+`}`, http.StatusCreated, &imp)
	sid := imp.SessionID

	// Every way of opening it.
	d.call(t, "GET", "/v1/sessions/"+sid, nil, http.StatusOK, nil)
	history := updates(t, d, sid)
	a := d.dialACP(t, "loader")
	a.WaitAnswer(a.Call("session/load", map[string]any{"sessionId": sid, "cwd": work, "mcpServers": []any{}}))
	b := d.dialACP(t, "attacher")
	replayed, _ := b.Attach(map[string]any{"sessionId": sid, "historyPolicy": "full"})

	// The control: a session of this daemon with a stdio server starts it.
	controlMarker := filepath.Join(marks, "control-1")
	var ctl struct{ SessionID string }
	d.call(t, "POST", "/v1/sessions", map[string]any{"cwd": work, "mcpServers": markerServer(controlMarker)}, http.StatusCreated, &ctl)
	testkit.Eventually(t, 30*time.Second, "the control session's MCP server", func() bool { return exists(controlMarker) })
	d.do(t, "POST", "/v1/sessions/"+ctl.SessionID+"/kill", nil)
	nothingStarted(t, srv, v, mcpMarker, toolMarker)
	checkClosedRun(t, history, replayed)
	// The answer says what was left out and what was closed.
	if imp.InterruptedRunID != "m1" || len(imp.CancelledPrompts) != 1 || imp.CancelledPrompts[0] != "m2" ||
		len(imp.Sanitized.MCPServers) != 1 || imp.Sanitized.MCPServers[0] != "pwn" || imp.Sanitized.ApprovalMode != "yolo" ||
		imp.Sanitized.CrashPolicy != "whatever" || len(imp.Sanitized.AdditionalDirs) != 3 {
		t.Fatalf("import answer: %+v", imp)
	}

	// After a restart, opened again.
	a.WS.Close()
	b.WS.Close()
	d.proc.Signal(syscall.SIGTERM)
	testkit.Equal(t, d.proc.Wait(t, 30*time.Second), 0)
	d = startDaemon(t, home, env, model...)
	c := d.dialACP(t, "after-restart")
	c.WaitAnswer(c.Call("session/load", map[string]any{"sessionId": sid, "cwd": work, "mcpServers": []any{}}))
	e := d.dialACP(t, "attacher-after-restart")
	replayed, _ = e.Attach(map[string]any{"sessionId": sid, "historyPolicy": "full"})
	history = updates(t, d, sid)
	controlMarker = filepath.Join(marks, "control-2")
	d.call(t, "POST", "/v1/sessions", map[string]any{"cwd": work, "mcpServers": markerServer(controlMarker)}, http.StatusCreated, &ctl)
	testkit.Eventually(t, 30*time.Second, "the second control session's MCP server", func() bool { return exists(controlMarker) })
	d.do(t, "POST", "/v1/sessions/"+ctl.SessionID+"/kill", nil)
	nothingStarted(t, srv, v, mcpMarker, toolMarker)
	checkClosedRun(t, history, replayed)

	// The session works, in the daemon's mode: a bash call asks first (the
	// bundle's yolo and its "always allow" for exec calls are not this
	// daemon's).
	pid := c.Prompt(sid, "anything left to do?")
	asked := c.Until(func(f acpclient.Frame) bool { return f.Method == "session/request_permission" || f.Answers(pid) })
	if last := asked[len(asked)-1]; last.Method != "session/request_permission" {
		t.Fatalf("the bash call ran without asking: %s (bash marker %v)", last.Raw, exists(toolMarker))
	}
	c.AnswerPermission(asked[len(asked)-1].ID, "reject_once")
	fs := c.Until(func(f acpclient.Frame) bool { return f.Answers(pid) })
	testkit.Equal(t, string(fs[len(fs)-1].Result), `{"stopReason":"end_turn"}`)
	// Two model calls, both this prompt's: nothing of the bundle's ran.
	testkit.Equal(t, len(srv.ChatRequests()), 2)
	if exists(toolMarker) || exists(mcpMarker) || !v.alive() {
		t.Fatalf("after a prompt: bash marker %v, mcp marker %v, victim alive %v", exists(toolMarker), exists(mcpMarker), v.alive())
	}
}

// nothingStarted checks the bundle's server, bash call and prompts never
// ran and its named process group was not signalled.
func nothingStarted(t *testing.T, srv *llmserver.Server, v *victim, mcpMarker, toolMarker string) {
	t.Helper()
	if exists(mcpMarker) {
		t.Fatal("the bundle's MCP server started")
	}
	if ps := processesNaming(t, mcpMarker); len(ps) > 0 {
		t.Fatalf("the bundle's MCP server runs: pids %v", ps)
	}
	if exists(toolMarker) {
		t.Fatal("the bundle's bash call ran")
	}
	if n := len(srv.ChatRequests()); n != 0 {
		t.Fatalf("the model was called %d times: the bundle's run or prompt went on", n)
	}
	if !v.alive() {
		t.Fatal("the process group the bundle named was signalled")
	}
}

// checkClosedRun checks a history (REST) and an ACP replay show the
// bundle's run ended, its bash call interrupted, and its queued prompt
// never run.
func checkClosedRun(t *testing.T, history []string, replayed []acpclient.Frame) {
	t.Helper()
	all := strings.Join(history, "\n")
	interrupted := false
	for _, u := range history {
		if strings.Contains(u, `"toolCallId":"call-bash"`) && strings.Contains(u, `"sessionUpdate":"tool_call_update"`) {
			interrupted = interrupted || (strings.Contains(u, `"status":"failed"`) && strings.Contains(u, "It was not run here"))
		}
	}
	if !interrupted || !strings.Contains(all, `"stopReason":"cancelled"`) {
		t.Fatalf("history does not show the bash call interrupted and the run cancelled:\n%s", all)
	}
	if n := strings.Count(all, `"sessionUpdate":"prompt_received"`); n != 1 {
		t.Fatalf("history has %d prompts received, want the bundle's run's one:\n%s", n, all)
	}
	for _, u := range history {
		if strings.Contains(u, `"currentModeId":"yolo"`) {
			t.Fatalf("the session shows yolo mode: %s", u)
		}
	}
	turns := 0
	for _, f := range replayed {
		if f.IsUpdate("turn_complete") {
			turns++
			if !strings.Contains(f.Raw, `"stopReason":"cancelled"`) {
				t.Fatalf("the bundle's run replays as %s", f.Raw)
			}
		}
	}
	if turns != 1 {
		t.Fatalf("the replay has %d turn_complete, want the bundle's run's one", turns)
	}
}

// A bundle's cwd must be an existing absolute directory here, and not the
// root: anything else is refused with a 400 that says to name one, which
// the request's cwd then does. Its additional directories that are not
// such are left out, and the imported session records it.
func TestDaemonImportChecksDirectories(t *testing.T) {
	d := startDaemon(t, t.TempDir(), nil)
	work := t.TempDir()
	file := filepath.Join(work, "a-file")
	testkit.NoError(t, os.WriteFile(file, []byte("x"), 0o644))
	root := filepath.Join(work, "root-link")
	testkit.NoError(t, os.Symlink("/", root))
	vars := map[string]string{"MCP_MARKER": filepath.Join(work, "m"), "TOOL_MARKER": filepath.Join(work, "t"), "VICTIM_PGID": "2000000000"}
	for i, cwd := range []string{"/", file, "relative/dir", "", "~", "/nonexistent/troupe-dir", root, "/."} {
		vars["LINEAGE"], vars["CWD"] = "lineage-cwd-"+strconv.Itoa(i), cwd
		msg := wantError(t, d.do(t, "POST", "/v1/sessions/import", `{"bundle":`+hostileBundle(t, vars)+`}`), http.StatusBadRequest)
		if !strings.Contains(msg, "cwd") || !strings.Contains(msg, "--cwd") {
			t.Fatalf("cwd %q: error %q does not say to name a directory", cwd, msg)
		}
	}
	// The importer names the directory instead (the bundle's is one too,
	// kept as an additional directory).
	named := t.TempDir()
	vars["LINEAGE"], vars["CWD"] = "lineage-cwd-named", work
	body, _ := json.Marshal(map[string]any{"cwd": named, "bundle": json.RawMessage(hostileBundle(t, vars))})
	var imp struct {
		SessionID string
		Sanitized struct{ AdditionalDirs []string }
	}
	d.call(t, "POST", "/v1/sessions/import", string(body), http.StatusCreated, &imp)
	var entry struct{ Cwd string }
	d.call(t, "GET", "/v1/sessions/"+imp.SessionID, nil, http.StatusOK, &entry)
	testkit.Equal(t, entry.Cwd, named)
	testkit.DeepEqual(t, imp.Sanitized.AdditionalDirs, []string{"/", "relative/dir", "/nonexistent/troupe-import-dir"})
	// The session's own record: kept dirs, what was left out and why.
	var exported struct {
		Troupe struct {
			Created struct {
				Cwd             string   `json:"cwd"`
				AdditionalDirs  []string `json:"additional_dirs"`
				MCPServers      []any    `json:"mcp_servers"`
				ImportSanitized struct {
					MCPServers     []string `json:"mcp_servers"`
					ApprovalMode   string   `json:"approval_mode"`
					AdditionalDirs []string `json:"additional_dirs"`
				} `json:"import_sanitized"`
			} `json:"created"`
		} `json:"troupe"`
	}
	d.call(t, "GET", "/v1/sessions/"+imp.SessionID+"/export", nil, http.StatusOK, &exported)
	c := exported.Troupe.Created
	if c.Cwd != named || len(c.AdditionalDirs) != 1 || c.AdditionalDirs[0] != work || len(c.MCPServers) != 0 ||
		len(c.ImportSanitized.MCPServers) != 1 || c.ImportSanitized.ApprovalMode != "yolo" || len(c.ImportSanitized.AdditionalDirs) != 3 {
		t.Fatalf("imported session.created: %+v", c)
	}
}

// bigBundle is a bundle of a session with runs*100 events after its
// session.created: each run a prompt, a step of 94 deltas, its message
// and its end.
func bigBundle(lineage, cwd string, runs int) string {
	var b strings.Builder
	b.WriteString(`{"version":1,"exportedAt":"2026-01-02T03:04:05Z","exportedFrom":{"hydraVersion":"troupe 0.0.0","machine":"elsewhere"},`)
	b.WriteString(`"session":{"sessionId":"s-big","lineageId":"` + lineage + `","agentId":"troupe","cwd":"` + cwd + `","createdAt":"2026-01-02T03:00:00Z","updatedAt":"2026-01-02T03:00:00Z"},`)
	b.WriteString(`"history":[],"troupe":{"created":{"cwd":"` + cwd + `","settings":{}},"events":[`)
	seq := 1
	add := func(kind, payload string) {
		seq++
		if seq > 2 {
			b.WriteByte(',')
		}
		b.WriteString(`{"seq":` + strconv.Itoa(seq) + `,"recordedAt":"2026-01-02T03:00:00Z","kind":"` + kind + `","payload":` + payload + `}`)
	}
	for r := range runs {
		run, msg := `"m`+strconv.Itoa(r)+`"`, `"a`+strconv.Itoa(r)+`"`
		add("prompt.queued", `{"message_id":`+run+`,"content":[{"type":"text","text":"prompt `+strconv.Itoa(r)+`"}],"delivery":"prompt"}`)
		add("run.started", `{"run_id":`+run+`}`)
		add("step.started", `{"run_id":`+run+`,"step":1,"message_count":1,"message_id":`+msg+`,"tool_style":"native"}`)
		for i := range 94 {
			add("message.delta", `{"run_id":`+run+`,"message_id":`+msg+`,"index":`+strconv.Itoa(i)+`,"channel":"text","text":"word "}`)
		}
		add("message.completed", `{"run_id":`+run+`,"message_id":`+msg+`,"text":"`+strings.Repeat("word ", 94)+`"}`)
		add("step.ended", `{"run_id":`+run+`,"step":1,"message_id":`+msg+`,"finish_reason":"stop","usage":{}}`)
		add("run.ended", `{"run_id":`+run+`,"stop_reason":"end_turn","usage":{}}`)
	}
	b.WriteString(`]}}`)
	return b.String()
}

// lineageLogs reads, behind the daemon's back, the sessions of lineage in
// the store and how many events each has.
func lineageLogs(t *testing.T, home, lineage string) map[string]int {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(home, "troupe.db")+"?mode=ro&_busy_timeout=5000")
	testkit.NoError(t, err)
	defer db.Close()
	rows, err := db.Query(`SELECT s.id, (SELECT count(*) FROM events e WHERE e.session_id = s.id)
		FROM sessions s JOIN events c ON c.session_id = s.id AND c.seq = 1
		WHERE CAST(c.payload AS TEXT) LIKE ?`, `%"lineage_id":"`+lineage+`"%`)
	testkit.NoError(t, err)
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var id string
		var n int
		testkit.NoError(t, rows.Scan(&id, &n))
		out[id] = n
	}
	testkit.NoError(t, rows.Err())
	return out
}

// postImport sends an import on its own goroutine, as a client the daemon
// may die under; done is closed once it has an answer or an error.
func postImport(d *daemonProc, body string) (done chan struct{}) {
	done = make(chan struct{})
	req, _ := http.NewRequest("POST", d.url+"/v1/sessions/import", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+d.token)
	go func() {
		defer close(done)
		if res, err := http.DefaultClient.Do(req); err == nil {
			_, _ = io.Copy(io.Discard, res.Body)
			res.Body.Close()
		}
	}()
	return done
}

// writeLock watches the store's write lock from outside, as another
// writer would: locked reports whether a transaction holds it now.
type writeLock struct{ db *sql.DB }

func watchWriteLock(t *testing.T, home string) *writeLock {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(home, "troupe.db")+"?_busy_timeout=0&_txlock=immediate")
	testkit.NoError(t, err)
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return &writeLock{db: db}
}

func (w *writeLock) locked() bool {
	tx, err := w.db.Begin()
	if err != nil {
		return strings.Contains(err.Error(), "locked") || strings.Contains(err.Error(), "busy")
	}
	_ = tx.Rollback()
	return false
}

// heldFor waits until the write lock has been held without a break for
// d (longer than any commit but an import's), or done is closed; it
// reports whether the lock was.
func (w *writeLock) heldFor(d time.Duration, done <-chan struct{}) bool {
	var since time.Time
	for {
		select {
		case <-done:
			return false
		default:
		}
		if !w.locked() {
			since = time.Time{}
		} else if since.IsZero() {
			since = time.Now()
		} else if time.Since(since) >= d {
			return true
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// A SIGKILL at any point of a 150,000-event import leaves the session
// whole or absent, never cut; the import then succeeds (or, when it had
// committed, is refused naming the whole session). The kills are spread
// over the time one whole import took, measured first: where they land
// varies, what is checked does not.
func TestDaemonImportSurvivesSIGKILL(t *testing.T) {
	const runs = 1500 // 150,000 events
	home, work := t.TempDir(), t.TempDir()
	// SIGKILLed below: that needs its own process.
	d := startDaemonBinary(t, home, nil)
	want := runs*100 + 1
	lock := watchWriteLock(t, home)
	start := time.Now()
	done := postImport(d, `{"bundle":`+bigBundle("lineage-whole", work, runs)+`}`)
	var held time.Duration
	for lock.heldFor(time.Millisecond, done) {
		t0 := time.Now()
		for lock.locked() {
			time.Sleep(time.Millisecond)
		}
		held = max(held, time.Since(t0))
	}
	<-done
	whole := time.Since(start)
	logs := lineageLogs(t, home, "lineage-whole")
	if len(logs) != 1 {
		t.Fatalf("the whole import: %v", logs)
	}
	for _, n := range logs {
		testkit.Equal(t, n, want)
	}
	t.Logf("one import of %d events: %s, the write lock held for up to %s", want-1, whole, held)

	type kill struct {
		after  time.Duration // from the request's start
		inLock time.Duration // or: once the write lock has been held this long
	}
	kills := []kill{{after: whole / 20}, {after: whole / 3}, {after: 2 * whole / 3},
		{inLock: 100 * time.Millisecond}, {inLock: held / 3}, {inLock: 2 * held / 3}, {after: 2 * whole}}
	for i, k := range kills {
		lineage := "lineage-kill-" + strconv.Itoa(i)
		body := `{"bundle":` + bigBundle(lineage, work, runs) + `}`
		done := postImport(d, body)
		if k.inLock > 0 {
			lock.heldFor(k.inLock, done)
		} else {
			time.Sleep(k.after)
		}
		d.proc.Kill()
		d.proc.Wait(t, 30*time.Second)
		<-done
		d = startDaemonBinary(t, home, nil) // killed in the next round
		after := lineageLogs(t, home, lineage)
		for id, n := range after {
			if n != want {
				t.Fatalf("kill %d (%+v): session %s has %d events, want all %d or none", i, k, id, n, want)
			}
		}
		if len(after) > 1 {
			t.Fatalf("kill %d: %d sessions of one lineage: %v", i, len(after), after)
		}
		t.Logf("kill %d (%+v): %d whole sessions", i, k, len(after))
		// The retry: imported, or refused naming the whole session.
		res := d.do(t, "POST", "/v1/sessions/import", body)
		raw, _ := io.ReadAll(res.Body)
		switch {
		case len(after) == 0 && res.StatusCode == http.StatusCreated:
		case len(after) == 1 && res.StatusCode == http.StatusConflict:
			var clash struct{ ExistingSessionID string }
			testkit.NoError(t, json.Unmarshal(raw, &clash))
			if _, ok := after[clash.ExistingSessionID]; !ok {
				t.Fatalf("kill %d: retry refused naming %s, not the whole session %v", i, clash.ExistingSessionID, after)
			}
		default:
			t.Fatalf("kill %d: retry answered %d %s with %d sessions there", i, res.StatusCode, raw, len(after))
		}
		logs = lineageLogs(t, home, lineage)
		if len(logs) != 1 {
			t.Fatalf("kill %d: after the retry: %v", i, logs)
		}
		for id, n := range logs {
			testkit.Equal(t, n, want)
			var e struct{ Status string }
			d.call(t, "GET", "/v1/sessions/"+id, nil, http.StatusOK, &e)
		}
	}
}

// withLineage is a bundle with its session.lineageId set to lineage.
func withLineage(t *testing.T, raw []byte, lineage string) []byte {
	t.Helper()
	var b map[string]any
	testkit.NoError(t, json.Unmarshal(raw, &b))
	b["session"].(map[string]any)["lineageId"] = lineage
	out, err := json.Marshal(b)
	testkit.NoError(t, err)
	return out
}

// A bundle's lineageId is the bundle writer's to choose: it never picks
// the session an import replaces. Replace needs the importer to name the
// session, which must be of the bundle's lineage.
func TestDaemonImportReplacesOnlyTheNamedSession(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	d := startDaemon(t, home, nil)
	victim, other := d.create(t, work), d.create(t, work)
	d.call(t, "PATCH", "/v1/sessions/"+victim, map[string]string{"title": "precious"}, http.StatusNoContent, nil)
	res := d.do(t, "GET", "/v1/sessions/"+other+"/export", nil)
	raw, _ := io.ReadAll(res.Body)
	crafted := withLineage(t, raw, victim)
	intact := func() {
		t.Helper()
		var e struct{ Title string }
		d.call(t, "GET", "/v1/sessions/"+victim, nil, http.StatusOK, &e)
		testkit.Equal(t, e.Title, "precious")
	}

	body := func(extra map[string]any) string {
		m := map[string]any{"bundle": json.RawMessage(crafted)}
		for k, v := range extra {
			m[k] = v
		}
		b, _ := json.Marshal(m)
		return string(b)
	}
	msg := wantError(t, d.do(t, "POST", "/v1/sessions/import", body(map[string]any{"replace": true})), http.StatusBadRequest)
	if !strings.Contains(msg, "replaceSessionId") {
		t.Fatalf("replace without a target: %q", msg)
	}
	intact()
	var clash struct{ ExistingSessionID string }
	res = d.do(t, "POST", "/v1/sessions/import", body(nil))
	testkit.Equal(t, res.StatusCode, http.StatusConflict)
	testkit.NoError(t, json.NewDecoder(res.Body).Decode(&clash))
	testkit.Equal(t, clash.ExistingSessionID, victim)
	// Naming a session of another lineage replaces nothing.
	wantError(t, d.do(t, "POST", "/v1/sessions/import", body(map[string]any{"replace": true, "replaceSessionId": other})), http.StatusConflict)
	wantError(t, d.do(t, "POST", "/v1/sessions/import", body(map[string]any{"replaceSessionId": "s-nope"})), http.StatusNotFound)
	intact()
	var e struct{ Title string }
	d.call(t, "GET", "/v1/sessions/"+other, nil, http.StatusOK, &e)

	// The CLI's --replace takes the session; without one it is a usage error.
	env := []string{"TROUPE_HOME=" + home}
	file := filepath.Join(t.TempDir(), "crafted.hydra")
	testkit.NoError(t, os.WriteFile(file, crafted, 0o600))
	if r := cli(t, env, "", "session", "import", file, "--replace"); r.code != 2 {
		t.Fatalf("import --replace without a session: exit %d, %q", r.code, r.stderr)
	}
	intact()
	// Named by the importer, the session of that lineage is replaced.
	r := cli(t, env, "", "session", "import", "--replace", victim, file)
	testkit.Equal(t, r.ok(t, "import --replace"), victim+"\n")
	d.call(t, "GET", "/v1/sessions/"+victim, nil, http.StatusOK, &e)
	if e.Title == "precious" {
		t.Fatal("the named session was not replaced")
	}
}

// An export carries none of a session's credentials: its MCP servers' env
// and header values (and URL secrets) and the daemon's capability tokens
// in the servers it injected are replaced, and the bundle says so.
func TestDaemonExportRedactsCredentials(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	d := startDaemon(t, home, nil, "--mcp-recall")
	secrets := []string{"ghp_envsecret0123456789", "hdr-secret-abcdef", "query-secret-987", "pass-secret-555"}
	a := d.dialACP(t, "secrets")
	var created struct{ SessionID string }
	a.WaitAnswer(a.Call("session/new", map[string]any{"cwd": work, "mcpServers": []any{
		map[string]any{"name": "gh", "command": "true", "args": []string{}, "env": []any{map[string]string{"name": "GITHUB_TOKEN", "value": secrets[0]}}},
		map[string]any{"type": "http", "name": "api", "url": "http://user:" + secrets[3] + "@127.0.0.1:9/mcp?key=" + secrets[2],
			"headers": []any{map[string]string{"name": "X-Api-Key", "value": secrets[1]}}},
	}, "_meta": map[string]any{"hydra-acp": map[string]any{"mcpStdin": true}}})).Decode(t, &created)
	sid := created.SessionID

	// The store keeps the values (the session starts its servers with
	// them), the daemon's capability tokens among them: read them there.
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(home, "troupe.db")+"?mode=ro&_busy_timeout=5000")
	testkit.NoError(t, err)
	defer db.Close()
	var payload string
	testkit.NoError(t, db.QueryRow("SELECT CAST(payload AS TEXT) FROM events WHERE session_id = ? AND seq = 1", sid).Scan(&payload))
	var stored struct {
		MCPServers []struct {
			Name    string
			Headers []struct{ Name, Value string }
		} `json:"mcp_servers"`
	}
	testkit.NoError(t, json.Unmarshal([]byte(payload), &stored))
	tokens := 0
	for _, s := range stored.MCPServers {
		for _, h := range s.Headers {
			if tok, ok := strings.CutPrefix(h.Value, "Bearer "); ok {
				secrets = append(secrets, tok)
				tokens++
			}
		}
	}
	if tokens != 2 {
		t.Fatalf("the session has %d capability tokens, want recall's and stdin's: %s", tokens, payload)
	}
	for _, s := range secrets {
		if !strings.Contains(payload, s) && !strings.Contains(payload, strings.ReplaceAll(s, "&", `\u0026`)) {
			t.Fatalf("the store lacks %q: the test reads the wrong session", s)
		}
	}

	// The store keeps the credentials where the session needs them (its
	// session.created), not in what it records of the servers: the
	// unreachable "api" server's error names its URL.
	var status string
	testkit.Eventually(t, 30*time.Second, "the api server's mcp.status", func() bool {
		err := db.QueryRow(`SELECT CAST(payload AS TEXT) FROM events WHERE session_id = ? AND kind = 'mcp.status'
			AND CAST(payload AS TEXT) LIKE '%"server":"api"%'`, sid).Scan(&status)
		return err == nil
	})
	if !strings.Contains(status, "127.0.0.1:9") {
		t.Fatalf("the api server's status does not name its URL (the check checks nothing): %s", status)
	}
	rows, err := db.Query("SELECT seq, CAST(payload AS TEXT) FROM events WHERE session_id = ? AND seq > 1", sid)
	testkit.NoError(t, err)
	for rows.Next() {
		var seq int
		var p string
		testkit.NoError(t, rows.Scan(&seq, &p))
		for _, s := range secrets {
			if strings.Contains(p, s) {
				t.Fatalf("the store keeps %q in event %d: %s", s, seq, p)
			}
		}
	}
	testkit.NoError(t, rows.Err())
	rows.Close()

	check := func(how string, bundle []byte) {
		t.Helper()
		for _, s := range secrets {
			if i := strings.Index(string(bundle), s); i >= 0 {
				t.Fatalf("%s: the bundle carries %q: …%s…", how, s, bundle[max(0, i-300):min(len(bundle), i+100)])
			}
		}
		var b struct{ Redacted []string }
		testkit.NoError(t, json.Unmarshal(bundle, &b))
		joined := strings.Join(b.Redacted, " ")
		for _, want := range []string{".env.GITHUB_TOKEN", ".headers.X-Api-Key", ".url", ".headers.Authorization"} {
			if !strings.Contains(joined, want) {
				t.Fatalf("%s: redacted %v lacks %s", how, b.Redacted, want)
			}
		}
	}
	res := d.do(t, "GET", "/v1/sessions/"+sid+"/export", nil)
	raw, _ := io.ReadAll(res.Body)
	check("REST export", raw)
	out := filepath.Join(t.TempDir(), "s.hydra")
	cli(t, []string{"TROUPE_HOME=" + home}, "", "session", "export", sid, "-o", out).ok(t, "export")
	fromCLI, err := os.ReadFile(out)
	testkit.NoError(t, err)
	check("troupe session export", fromCLI)
}
