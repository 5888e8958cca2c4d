package agentcompat

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/acpclient"
	"github.com/troupehq/troupe/testkit/agentcompat/acprec"
)

// Row results.
const (
	OK      = "ok"      // it did what the row asks
	Differs = "differs" // it worked, but not the way the row expects
	Fails   = "fails"   // it did not work
)

// wait bounds each read of a client: a Node agent's start, and opencode's
// first fetch of its provider package, take seconds.
const wait = 120 * time.Second

// Model is the scripted model behind a real agent: Set says what the
// next turn's requests get (mode text, tool or slow; marker the reply's
// text), Remembers whether the last request carried the first row's
// reply. A replay has none: its agent answers from the recording.
type Model interface {
	Set(mode, marker string)
	Remembers() bool
}

// rowT records why a row stopped, for the matrix.
type rowT struct {
	*testing.T
	step, reason string
}

func (r *rowT) Fatalf(format string, a ...any) {
	r.reason = r.step + ": " + fmt.Sprintf(format, a...)
	r.T.Fatalf(format, a...)
}

func (r *rowT) Fatal(a ...any) {
	r.reason = r.step + ": " + fmt.Sprint(a...)
	r.T.Fatal(a...)
}

// Outcome is one row's result.
type Outcome struct{ Status, Reason string }

// world is one agent's daemon, model and session.
type world struct {
	agentID string
	d       *Daemon
	m       Model  // nil in a replay
	rec     string // where each start of the agent is recorded
	cwd     string
	sid     string
	// firstTurn is how often the first reply shows in the REST history
	// after the first row.
	firstTurn int
}

func (w *world) set(mode, marker string) {
	if w.m != nil {
		w.m.Set(mode, marker)
	}
}

type row struct {
	name string
	run  func(w *world, t *rowT) Outcome
}

var rows = []row{
	{"prompt", (*world).prompt},
	{"permission", (*world).permission},
	{"write", (*world).write},
	{"cancel", (*world).cancel},
	{"kill+load", (*world).killLoad},
	{"restart", (*world).restart},
	{"sigkill", (*world).sigkill},
	{"replay", (*world).replay},
}

func (w *world) run(t *testing.T, r row) Outcome {
	var out Outcome
	rt := &rowT{}
	passed := t.Run(r.name, func(t *testing.T) {
		rt.T = t
		out = r.run(w, rt)
	})
	if !passed {
		return Outcome{Fails, rt.reason}
	}
	return out
}

func isAsk(f acpclient.Frame) bool { return f.Method == "session/request_permission" }

// turn prompts over c and reads up to the answer.
func turn(t *rowT, c *acpclient.Client, sid, text string) ([]acpclient.Frame, string) {
	id := c.Prompt(sid, text)
	fs := c.Until(func(f acpclient.Frame) bool { return f.Answers(id) })
	ans := fs[len(fs)-1]
	if ans.Error != nil {
		return fs, "error: " + ans.Error.Message
	}
	var res struct {
		StopReason string `json:"stopReason"`
	}
	ans.Decode(t, &res)
	return fs[:len(fs)-1], res.StopReason
}

func (w *world) prompt(t *rowT) Outcome {
	t.step = "session/new"
	a := w.d.Dial(t, "editor", wait)
	w.sid = NewSession(t, a, w.cwd, w.agentID)
	b := w.d.Dial(t, "watcher", wait)
	b.Attach(map[string]any{"sessionId": w.sid, "historyPolicy": "none"})
	w.set("text", "reply-prompt")
	t.step = "prompt"
	fs, stop := turn(t, a, w.sid, "say the marker")
	text := acpclient.Chunks(t, fs)
	if stop != "end_turn" || !strings.Contains(text, "reply-prompt") {
		t.Fatalf("stop %q, text %q", stop, text)
	}
	t.step = "the watcher's stream"
	watched := b.Until(func(f acpclient.Frame) bool { return f.IsUpdate("agent_message_chunk") })
	if !strings.Contains(acpclient.Chunks(t, watched), "reply") {
		t.Fatalf("the watching client saw %q", acpclient.Chunks(t, watched))
	}
	t.step = "REST history"
	code, hist := w.d.Do(t, http.MethodGet, "/v1/sessions/"+w.sid+"/history")
	if code != http.StatusOK || !strings.Contains(hist, "reply-prompt") {
		t.Fatalf("history %d lacks the reply: %.300s", code, hist)
	}
	w.firstTurn = strings.Count(hist, "reply-prompt")
	return Outcome{OK, ""}
}

func (w *world) permission(t *rowT) Outcome {
	return w.toolRow(t, "tool", "reply-tool", "tool-ran.txt")
}

// write has the model call the agent's own file-writing tool: the
// permission is answered as above, and the reason says whether the agent
// wrote the file through troupe (fs/write_text_file) or itself.
func (w *world) write(t *rowT) Outcome {
	if mode := askMode[w.agentID]; mode != "" {
		t.step = "session/set_mode " + mode
		c := w.d.Dial(t, "settings", wait)
		c.Attach(map[string]any{"sessionId": w.sid, "historyPolicy": "none"})
		if ans := c.WaitAnswer(c.Call("session/set_mode", map[string]any{"sessionId": w.sid, "modeId": mode})); ans.Error != nil {
			t.Fatalf("session/set_mode: %s", ans.Raw)
		}
	}
	out := w.toolRow(t, "write", "reply-write", "agent-wrote.txt")
	if out.Status == OK {
		out.Reason = "the agent wrote it itself"
		if w.agentAsked("fs/write_text_file") {
			out.Reason = "written by troupe (fs/write_text_file)"
		}
	}
	return out
}

// askMode is the mode the write row sets first, by agent: qwen-code
// starts an ACP session in its "auto" mode, whose classifier lets a write
// inside the session's directory through unasked; "default" asks.
var askMode = map[string]string{"qwen": "default"}

// agentAsked says whether the agent's last start sent a request method.
func (w *world) agentAsked(method string) bool {
	rs, err := acprec.ReadRecordings(w.rec)
	if err != nil || len(rs) == 0 {
		return false
	}
	for _, l := range rs[len(rs)-1].Lines {
		if l.From == "agent" && l.Method() == method {
			return true
		}
	}
	return false
}

// toolRow prompts for a tool call the model makes in mode, whose
// permission the watching client answers and whose effect is file in the
// session's directory.
func (w *world) toolRow(t *rowT, mode, marker, file string) Outcome {
	t.step = "attach"
	a := w.d.Dial(t, "editor", wait)
	a.Attach(map[string]any{"sessionId": w.sid, "historyPolicy": "none"})
	b := w.d.Dial(t, "watcher", wait)
	b.Attach(map[string]any{"sessionId": w.sid, "historyPolicy": "none"})
	w.set(mode, marker)
	id := a.Prompt(w.sid, "use the tool")
	t.step = "the permission request on the first client"
	var fs []acpclient.Frame
	var asked acpclient.Frame
	fs = a.Until(func(f acpclient.Frame) bool { return isAsk(f) || f.Answers(id) })
	if last := fs[len(fs)-1]; !isAsk(last) {
		return Outcome{Differs, "the agent asked no permission (ran the tool: " + fmt.Sprint(fileExists(filepath.Join(w.cwd, file))) + "); answer " + last.Raw}
	}
	t.step = "the permission request on the watcher"
	bfs := b.Until(isAsk)
	asked = bfs[len(bfs)-1]
	var req struct {
		Options []struct {
			OptionID string `json:"optionId"`
			Kind     string `json:"kind"`
		} `json:"options"`
	}
	asked.DecodeParams(t, &req)
	opt := ""
	for _, o := range req.Options {
		if o.Kind == "allow_once" && opt == "" {
			opt = o.OptionID
		}
	}
	if opt == "" {
		t.Fatalf("no allow_once option: %s", asked.Raw)
	}
	b.AnswerPermission(asked.ID, opt)
	t.step = "the turn after the answer"
	rest := a.Until(func(f acpclient.Frame) bool { return f.Answers(id) })
	fs = append(fs, rest...)
	resolved := ""
	for _, f := range fs {
		if f.IsUpdate("permission_resolved") {
			resolved = f.Update(t).Update.ResolvedBy
		}
	}
	// An answer is recorded under the answering client's clientInfo name.
	if resolved != "watcher" {
		t.Fatalf("the first client saw the permission resolved by %q, not the watcher", resolved)
	}
	if (w.m != nil || w.agentAsked("fs/write_text_file")) && !fileExists(filepath.Join(w.cwd, file)) {
		t.Fatalf("the tool did not run; text %q", acpclient.Chunks(t, fs))
	}
	if acpclient.Count(fs, "tool_call") == 0 {
		return Outcome{Differs, "the tool ran but no tool_call update reached the client"}
	}
	if !strings.Contains(acpclient.Chunks(t, fs), "tool done") {
		return Outcome{Differs, "the tool ran, the reply after it did not stream: " + acpclient.Chunks(t, fs)}
	}
	return Outcome{OK, ""}
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

func (w *world) cancel(t *rowT) Outcome {
	a := w.d.Dial(t, "editor", wait)
	a.Attach(map[string]any{"sessionId": w.sid, "historyPolicy": "none"})
	w.set("slow", "reply-slow")
	t.step = "the slow stream's first chunk"
	id := a.Prompt(w.sid, "stream slowly")
	a.Until(func(f acpclient.Frame) bool { return f.IsUpdate("agent_message_chunk") })
	t.step = "the cancelled turn's answer"
	a.Send(map[string]any{"jsonrpc": "2.0", "method": "session/cancel", "params": map[string]any{"sessionId": w.sid}})
	ans := a.WaitAnswerWithin(id, 30*time.Second)
	var res struct {
		StopReason string `json:"stopReason"`
	}
	if ans.Error != nil {
		return Outcome{Differs, "the cancelled turn answered an error: " + ans.Error.Message}
	}
	ans.Decode(t, &res)
	if res.StopReason != "cancelled" {
		return Outcome{Differs, "stopReason " + res.StopReason}
	}
	return Outcome{OK, ""}
}

// upstream says whether the agent's last start loaded its session or was
// given a fresh one.
func (w *world) upstream() string {
	rs, err := acprec.ReadRecordings(w.rec)
	if err != nil || len(rs) == 0 {
		return "no recording"
	}
	last := rs[len(rs)-1]
	for _, m := range last.Lines {
		if m.From == "troupe" && (m.Method() == "session/load" || m.Method() == "session/resume") {
			return m.Method()
		}
	}
	return "session/new (takeover brief)"
}

func (w *world) promptAgain(t *rowT, c *acpclient.Client, marker string) Outcome {
	w.set("text", marker)
	t.step = "prompt after it"
	fs, stop := turn(t, c, w.sid, "say the marker again")
	if stop != "end_turn" || !strings.Contains(acpclient.Chunks(t, fs), marker) {
		t.Fatalf("stop %q, text %q", stop, acpclient.Chunks(t, fs))
	}
	how := w.upstream()
	// What the agent replays while it loads its session must not be
	// recorded a second time.
	t.step = "REST history after it"
	if _, hist := w.d.Do(t, http.MethodGet, "/v1/sessions/"+w.sid+"/history"); strings.Count(hist, "reply-prompt") != w.firstTurn {
		return Outcome{Differs, fmt.Sprintf("the history holds the first reply %d times, %d before (%s)", strings.Count(hist, "reply-prompt"), w.firstTurn, how)}
	}
	if w.m != nil && !w.m.Remembers() {
		return Outcome{Differs, "answered, but the model's request lacked the first turn (" + how + ")"}
	}
	return Outcome{OK, how}
}

func (w *world) killLoad(t *rowT) Outcome {
	t.step = "kill"
	if code, body := w.d.Do(t, http.MethodPost, "/v1/sessions/"+w.sid+"/kill"); code != http.StatusAccepted {
		t.Fatalf("kill answered %d %s", code, body)
	}
	t.step = "session/load"
	c := w.d.Dial(t, "editor", wait)
	ans := c.WaitAnswer(c.Call("session/load", map[string]any{"sessionId": w.sid, "cwd": w.cwd, "mcpServers": []any{}}))
	if ans.Error != nil {
		t.Fatalf("session/load: %s", ans.Raw)
	}
	return w.promptAgain(t, c, "reply-load")
}

func (w *world) restart(t *rowT) Outcome {
	t.step = "stop"
	w.d.Stop(t)
	t.step = "start"
	w.d.Start(t)
	t.step = "attach"
	c := w.d.Dial(t, "editor", wait)
	c.Attach(map[string]any{"sessionId": w.sid, "historyPolicy": "none"})
	return w.promptAgain(t, c, "reply-restart")
}

// replay attaches a client with the full history: every turn of the rows
// above comes back from troupe's log, the agent not asked.
func (w *world) replay(t *rowT) Outcome {
	t.step = "attach with the full history"
	c := w.d.Dial(t, "late", wait)
	fs, _ := c.Attach(map[string]any{"sessionId": w.sid, "historyPolicy": "full"})
	text := acpclient.Chunks(t, fs)
	for _, want := range []string{"reply-prompt", "tool done reply-tool", "slow start", "reply-load", "reply-restart", "reply-sigkill"} {
		if !strings.Contains(text, want) {
			t.Fatalf("the replay lacks %q: %q", want, text)
		}
	}
	if acpclient.Count(fs, "tool_call") == 0 {
		return Outcome{Differs, "the replay has no tool_call"}
	}
	if n := strings.Count(text, "reply-prompt"); n != 1 {
		return Outcome{Differs, fmt.Sprintf("the replay shows the first reply %d times", n)}
	}
	return Outcome{OK, ""}
}

// sigkill kills the daemon (SIGKILL) mid-stream with a prompt queued
// behind the turn: the agent's program dies with it, and the next daemon
// brings the session back with what streamed, runs the queued prompt on
// the agent (loaded again), and answers the next.
func (w *world) sigkill(t *rowT) Outcome {
	a := w.d.Dial(t, "editor", wait)
	a.Attach(map[string]any{"sessionId": w.sid, "historyPolicy": "none"})
	w.set("slow", "reply-slow")
	t.step = "the slow stream's first chunk"
	a.Prompt(w.sid, "stream slowly again")
	a.Until(func(f acpclient.Frame) bool { return f.IsUpdate("agent_message_chunk") })
	t.step = "a prompt queued behind it"
	w.set("text", "reply-sigkill")
	a.Prompt(w.sid, "say the marker after the kill")
	a.Until(func(f acpclient.Frame) bool { return f.Method == "hydra-acp/prompt_queue/added" })
	t.step = "SIGKILL"
	w.d.Proc.Kill()
	if _, err := w.d.Proc.ExitCode(30 * time.Second); err != nil {
		t.Fatalf("the daemon did not die: %v", err)
	}
	if w.m != nil {
		t.step = "the agent's processes after the daemon's death"
		testkit.Eventually(t, 20*time.Second, "the agent died with the daemon", func() bool { return !w.agentAlive() })
	}
	t.step = "start"
	w.d.Start(t)
	t.step = "the queued prompt after the restart"
	c := w.d.Dial(t, "editor", wait)
	all, _ := c.Attach(map[string]any{"sessionId": w.sid, "historyPolicy": "full"})
	if !strings.Contains(acpclient.Chunks(t, all), "reply-sigkill") {
		all = append(all, c.Until(func(f acpclient.Frame) bool {
			return f.IsUpdate("agent_message_chunk") && strings.Contains(f.Update(t).Update.Content.Text, "reply-sigkill")
		})...)
	}
	if !strings.Contains(acpclient.Chunks(t, all), "slow start") {
		return Outcome{Differs, "what streamed before the kill is not in the history"}
	}
	return Outcome{OK, w.upstream()}
}

// agentAlive says whether a tee or agent process of any start still runs.
func (w *world) agentAlive() bool {
	files, _ := filepath.Glob(filepath.Join(w.rec, "start-*.pids"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, s := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(s); err == nil && syscall.Kill(pid, 0) == nil && !zombie(pid) {
				return true
			}
		}
	}
	return false
}

// zombie says whether pid has exited and waits only for its reaping.
func zombie(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && i+2 < len(s) && s[i+2] == 'Z'
}
