//go:build hydracompat

package hydracompat

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/troupehq/troupe/testkit"
)

// The fake model's scripts. After its replies the fake llama-server
// echoes the last user message, a word a frame.
const (
	// A streamed answer in three frames.
	scriptAnswer = `replies:
  - steps:
      - text: "ALPHA "
      - text: "BRAVO "
      - text: "CHARLIE"
`
	// A shell command (asks permission), then an answer.
	scriptPermission = `replies:
  - steps:
      - tool_call: {id: call_1, name: bash, arguments: {command: "echo perm > perm.txt"}}
  - steps:
      - text: "DONE AFTER TOOL"
`
	// A file written (an edit the changes and diff verbs find).
	scriptWrite = `replies:
  - steps:
      - tool_call: {id: call_1, name: write, arguments: {path: notes.txt, content: "hello notes\n"}}
  - steps:
      - text: "WROTE NOTES"
`
	// An answer that stalls after its first words.
	scriptSlow = `replies:
  - steps:
      - text: "SLOW START "
      - delay: 60s
      - text: "NEVER"
`
	// Piped stdin read through the hydra-acp-stdin tools (its head is
	// evicted from a 1 MiB ring by a larger input, in Hydra too).
	scriptStdin = `replies:
  - steps:
      - tool_call: {id: call_1, name: hydra-acp-stdin__head, arguments: {bytes: 64}}
  - steps:
      - text: "READ THE HEAD"
`
)

type row struct {
	name   string
	script string
	run    func(h *H) Outcome
}

type result struct{ row, status, reason string }

func TestHydraClients(t *testing.T) {
	cli, node := os.Getenv("HYDRA_CLI"), os.Getenv("NODE")
	if cli == "" {
		t.Skip("HYDRA_CLI (the path of hydra-acp's dist/cli.js) is not set; see README.md, Using Hydra's own clients")
	}
	if node == "" {
		node = "node"
	}
	node, err := exec.LookPath(node)
	testkit.NoError(t, err)
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("the TUI rows need tmux")
	}
	tl := tools{node: node, cli: cli, troupe: testkit.BuildTroupe(t), fakeLlama: testkit.BuildFakeLlamaServer(t)}
	var results []result
	for _, r := range rows() {
		t.Run(r.name, func(t *testing.T) {
			h := newH(t, tl, r.script)
			out := r.run(h)
			if bad := h.hydraDaemon(); bad != "" {
				out = fails("%s", bad)
			}
			results = append(results, result{r.name, out.Status, out.Reason})
			if out.Status != OK {
				t.Errorf("%s: %s", out.Status, out.Reason)
				return
			}
			if *update {
				h.save(r.name)
			}
		})
	}
	report(t, results)
}

// save writes the row's recording into testdata.
func (h *H) save(name string) {
	h.t.Helper()
	host, _ := os.Hostname()
	setup, err := json.Marshal(Setup{Config: h.config, Script: h.D.Script, Work: h.D.Work, Home: h.D.Home, Host: host})
	testkit.NoError(h.t, err)
	recs := append([]Record{{Kind: KindSetup, Body: setup}}, h.P.Rec.Records()...)
	testkit.NoError(h.t, os.MkdirAll("testdata", 0o755))
	path := filepath.Join("testdata", name+".jsonl")
	size := 0
	for _, rec := range recs {
		size += len(rec.Payload())
	}
	// A large piped input is kept compressed.
	if size > 256<<10 {
		path += ".gz"
	}
	for _, stale := range []string{filepath.Join("testdata", name+".jsonl"), filepath.Join("testdata", name+".jsonl.gz")} {
		os.Remove(stale)
	}
	testkit.NoError(h.t, WriteFile(path, recs))
}

// report prints the matrix and writes it to $HYDRA_COMPAT_MATRIX (default
// hydra-compat-matrix.txt in the temporary directory).
func report(t *testing.T, results []result) {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	counts := map[string]int{}
	for _, r := range results {
		counts[r.status]++
		fmt.Fprintf(tw, "%s\t%s\t%s\n", r.row, r.status, r.reason)
	}
	tw.Flush()
	fmt.Fprintf(&b, "\n%d rows: %d ok, %d differ, %d fail\n", len(results), counts[OK], counts[Differs], counts[Fails])
	path := os.Getenv("HYDRA_COMPAT_MATRIX")
	if path == "" {
		path = filepath.Join(os.TempDir(), "hydra-compat-matrix.txt")
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Errorf("write the matrix: %v", err)
	}
	fmt.Printf("\nHydra client compatibility matrix (also in %s):\n\n%s", path, b.String())
}

func rows() []row {
	return []row{
		{"cli-daemon-status", "", cliDaemonStatus},
		{"cli-version", "", cliVersion},
		{"cli-session-list", scriptAnswer, cliSessionList},
		{"cli-session-list-all", "", cliSessionListAll},
		{"cli-session-list-json", scriptAnswer, cliSessionListJSON},
		{"cli-session-info", scriptAnswer, cliSessionInfo},
		{"cli-session-transcript", scriptAnswer, cliSessionTranscript},
		{"cli-session-transcript-last", "", cliSessionTranscriptLast},
		{"cli-session-transcript-bundle", scriptAnswer, cliSessionTranscriptBundle},
		{"cli-session-export-import", scriptAnswer, cliSessionExportImport},
		{"cli-session-kill", scriptAnswer, cliSessionKill},
		{"cli-session-list-after-restart", scriptAnswer, cliListAfterRestart},
		{"cli-session-remove", scriptAnswer, cliSessionRemove},
		{"cli-session-collect", "", cliSessionCollect},
		{"cli-session-changes", scriptWrite, cliSessionChanges},
		{"cli-session-diff", scriptWrite, cliSessionDiff},
		{"cli-extension-list", "", cliOK("extension", "list")},
		{"cli-transformer-list", "", cliOK("transformer", "list")},
		{"cli-auth-list", "", cliOK("auth", "list")},
		{"cli-agent-list", "", cliAgentList},
		{"cat-small", "", catSmall},
		{"cat-over-1mib", scriptStdin, catLarge},
		{"cat-into-session", "", catIntoSession},
		{"cat-model-flag", "", catModelFlag},
		{"acp-prompt", scriptAnswer, acpPrompt},
		{"acp-permission", scriptPermission, acpPermission},
		{"acp-cancel", scriptSlow, acpCancel},
		{"acp-daemon-restart", scriptAnswer, acpRestart},
		{"launch-shim", scriptAnswer, launchShim},
		{"tui-new-session", scriptAnswer, tuiNew},
		{"tui-permission-key", scriptPermission, tuiPermission},
		{"tui-picker-switch", "", tuiPicker},
		{"tui-picker-search", "", tuiSearch},
		{"tui-picker-fork", "", tuiPickerFork},
		{"tui-picker-kill", "", tuiPickerKill},
		{"tui-detach-reattach", scriptAnswer, tuiReattach},
		{"tui-daemon-restart", scriptAnswer, tuiRestart},
		{"tui-shift-tab", "", tuiShiftTab},
		{"tui-mode", "", tuiChooser("/mode", "Approval mode", false)},
		{"tui-mode-after-attach", "", tuiChooser("/mode", "Approval mode", true)},
		{"tui-model", "", tuiChooser("/model", "Model", false)},
		{"tui-model-after-attach", "", tuiChooser("/model", "Model", true)},
		{"tui-rename", "", tuiRename},
		{"tui-hydra-help", "", tuiHydraHelp},
	}
}

// --- CLI verbs

func cliDaemonStatus(h *H) Outcome {
	r := h.CLI("", "daemon", "status")
	want := "pid=" + itoa(h.info.PID)
	if r.Code != 0 || !strings.Contains(r.Stdout, "running") || strings.Contains(r.Stdout, "not running") || !strings.Contains(r.Stdout, want) {
		return fails("daemon status: %s; want running with %s", r, want)
	}
	return ok()
}

func cliVersion(h *H) Outcome {
	r := h.CLI("", "version")
	if r.Code != 0 || !strings.Contains(r.Stdout, "Daemon: 0.1.161") {
		return fails("version: %s; want Daemon: 0.1.161", r)
	}
	if strings.Contains(r.Stdout+r.Stderr, "restart") {
		return differs("version advises a restart: %s", r)
	}
	return ok()
}

func cliSessionList(h *H) Outcome {
	sid, err := h.ShimSession("hello list")
	if err != nil {
		return fails("setup (an editor's session over the acp shim): %v", err)
	}
	r := h.CLI("", "session", "list")
	if r.Code != 0 || !strings.Contains(r.Stdout, sid) {
		return fails("session list does not show the editor's prompted session %s: %s", sid, r)
	}
	if !rowHas(r.Stdout, sid, "WARM") {
		return differs("session list shows %s but not WARM: %q", sid, lineWith(r.Stdout, sid))
	}
	return ok()
}

func cliSessionListAll(h *H) Outcome {
	r := h.CLI("piped input\n", "cat", "-p", "summarise")
	if r.Code != 0 {
		return fails("setup (hydra cat): %s", r)
	}
	all := h.CLI("", "session", "list", "--all")
	catIDs := ids(all.Stdout)
	if len(catIDs) != 1 {
		return fails("session list --all shows %d sessions after one hydra cat: %s", len(catIDs), all)
	}
	def := h.CLI("", "session", "list")
	if strings.Contains(def.Stdout, catIDs[0]) {
		return differs("session list shows the hydra cat session %s (non-interactive: Hydra lists it only with --all): %q", catIDs[0], lineWith(def.Stdout, catIDs[0]))
	}
	return ok()
}

func cliSessionListJSON(h *H) Outcome {
	sid, err := h.ShimSession("hello json")
	if err != nil {
		return fails("setup: %v", err)
	}
	r := h.CLI("", "session", "list", "--json")
	var list []map[string]any
	if err := json.Unmarshal([]byte(r.Stdout), &list); err != nil {
		return fails("session list --json printed no JSON array: %s", r)
	}
	for _, e := range list {
		if e["sessionId"] != sid {
			continue
		}
		var diffs []string
		if e["status"] != "warm" {
			diffs = append(diffs, fmt.Sprintf("status %q for a live session (the clients sort and filter on \"warm\")", e["status"]))
		}
		if e["title"] != "hello json" {
			diffs = append(diffs, fmt.Sprintf("title %q (Hydra titles a session by its first prompt, \"hello json\")", e["title"]))
		}
		if len(diffs) > 0 {
			return differs("session list --json says %s", strings.Join(diffs, "; "))
		}
		return ok()
	}
	return fails("session list --json lacks the prompted session %s: %s", sid, r)
}

func cliSessionInfo(h *H) Outcome {
	sid, err := h.ShimSession("hello info")
	if err != nil {
		return fails("setup: %v", err)
	}
	r := h.CLI("", "session", "info", sid, "--no-pager", "--no-color")
	if r.Code != 0 {
		return fails("session info: %s", r)
	}
	if !strings.Contains(r.Stdout, sid) {
		return differs("session info does not name the session: %s", r)
	}
	return ok()
}

func cliSessionTranscript(h *H) Outcome {
	sid, err := h.ShimSession("hello transcript")
	if err != nil {
		return fails("setup: %v", err)
	}
	r := h.CLI("", "session", "transcript", sid)
	if r.Code != 0 || !strings.Contains(r.Stdout, "ALPHA BRAVO CHARLIE") {
		return fails("session transcript lacks the answer ALPHA BRAVO CHARLIE: %s", r)
	}
	if n := strings.Count(transcriptBody(r.Stdout), "hello transcript"); n != 1 {
		return differs("session transcript renders the prompt %d times, want once", n)
	}
	return ok()
}

// transcriptBody is a markdown transcript without its heading: the
// session's title, which is its first prompt's line (as Hydra titles it),
// so a prompt shown once in the body is also in the heading.
func transcriptBody(md string) string {
	if strings.HasPrefix(md, "# ") {
		if _, rest, ok := strings.Cut(md, "\n"); ok {
			return rest
		}
	}
	return md
}

func cliSessionTranscriptLast(h *H) Outcome {
	s := h.StartShim()
	sid, err := s.Open()
	if err != nil {
		return fails("setup: %v", err)
	}
	for _, p := range []string{"turn one words", "turn two words"} {
		if _, err := s.Prompt(sid, p, 60*time.Second); err != nil {
			return fails("setup: %v", err)
		}
	}
	r := h.CLI("", "session", "transcript", sid, "--last", "1")
	if r.Code != 0 || !strings.Contains(r.Stdout, "turn two words") {
		return fails("session transcript --last 1: %s; want the second turn", r)
	}
	if strings.Contains(transcriptBody(r.Stdout), "turn one words") {
		return differs("session transcript --last 1 renders the first turn too (the window options are ignored)")
	}
	return ok()
}

func cliSessionTranscriptBundle(h *H) Outcome {
	sid, err := h.ShimSession("hello bundle")
	if err != nil {
		return fails("setup: %v", err)
	}
	out := filepath.Join(h.D.Work, "bundle.hydra")
	if r := h.CLI("", "session", "export", sid, "--out", out); r.Code != 0 {
		return fails("session export: %s", r)
	}
	r := h.CLI("", "session", "transcript", out)
	if r.Code != 0 || !strings.Contains(r.Stdout, "ALPHA BRAVO CHARLIE") {
		return fails("session transcript of the exported bundle: %s; want the answer", r)
	}
	if n := strings.Count(transcriptBody(r.Stdout), "hello bundle"); n != 1 {
		return differs("the exported bundle renders the prompt %d times in Hydra, want once", n)
	}
	return ok()
}

func cliSessionExportImport(h *H) Outcome {
	sid, err := h.ShimSession("hello export")
	if err != nil {
		return fails("setup: %v", err)
	}
	out := filepath.Join(h.D.Work, "bundle.hydra")
	if r := h.CLI("", "session", "export", sid, "--out", out); r.Code != 0 {
		return fails("session export: %s", r)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		return fails("session export wrote no bundle: %v", err)
	}
	var bundle map[string]any
	if err := json.Unmarshal(b, &bundle); err != nil {
		return fails("the exported bundle is not JSON: %v", err)
	}
	// A bundle's lineage is already here while its session is: Hydra
	// refuses that import too (without --replace), so the session goes
	// first.
	if r := h.CLI("", "session", "remove", sid); r.Code != 0 {
		return fails("session remove: %s", r)
	}
	r := h.CLI("", "session", "import", out)
	if r.Code != 0 {
		return fails("session import: %s", r)
	}
	list, lr := h.SessionsJSON()
	if len(list) != 1 {
		return fails("after remove and import, session list --all --json has %d sessions, want 1: %s", len(list), lr)
	}
	var missing []string
	for _, k := range []string{"promptHistory", "title", "interactive", "originatingClient"} {
		if !hasKey(bundle, k) {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		return differs("export and import work; the bundle lacks %s", strings.Join(missing, ", "))
	}
	return ok()
}

func cliSessionKill(h *H) Outcome {
	sid, err := h.ShimSession("hello kill")
	if err != nil {
		return fails("setup: %v", err)
	}
	if r := h.CLI("", "session", "kill", sid); r.Code != 0 {
		return fails("session kill: %s", r)
	}
	r := h.CLI("", "session", "list", "--all")
	if !rowHas(r.Stdout, sid, "COLD") {
		return fails("after session kill the session is not COLD: %q", lineWith(r.Stdout, sid))
	}
	return ok()
}

func cliListAfterRestart(h *H) Outcome {
	sid, err := h.ShimSession("hello restart")
	if err != nil {
		return fails("setup: %v", err)
	}
	updatedAt := func() (any, Run) {
		list, r := h.SessionsJSON()
		for _, e := range list {
			if e["sessionId"] == sid {
				return e["updatedAt"], r
			}
		}
		return nil, r
	}
	before, r := updatedAt()
	if before == nil {
		return fails("session list --all --json lacks %s: %s", sid, r)
	}
	time.Sleep(1100 * time.Millisecond)
	h.Restart()
	after, r := updatedAt()
	if after == nil {
		return fails("after troupe daemon restarted, session list --all --json lacks %s: %s", sid, r)
	}
	if after != before {
		return differs("troupe daemon's restart moved the session's updatedAt from %v to %v", before, after)
	}
	return ok()
}

func cliSessionRemove(h *H) Outcome {
	sid, err := h.ShimSession("hello remove")
	if err != nil {
		return fails("setup: %v", err)
	}
	if r := h.CLI("", "session", "remove", sid); r.Code != 0 {
		return fails("session remove: %s", r)
	}
	if r := h.CLI("", "session", "list", "--all"); strings.Contains(r.Stdout, sid) {
		return fails("after session remove the session is still listed: %q", lineWith(r.Stdout, sid))
	}
	return ok()
}

func cliSessionCollect(h *H) Outcome {
	if r := h.CLI("piped input\n", "cat", "-p", "summarise"); r.Code != 0 {
		return fails("setup (hydra cat): %s", r)
	}
	all := h.CLI("", "session", "list", "--all")
	catIDs := ids(all.Stdout)
	if len(catIDs) != 1 {
		return fails("session list --all shows %d sessions after one hydra cat", len(catIDs))
	}
	// A cat session goes cold when cat exits (Hydra lets it go); only cold
	// ones are collected.
	h.CLI("", "session", "kill", catIDs[0])
	r := h.CLI("", "session", "collect")
	if r.Code != 0 {
		return fails("session collect: %s", r)
	}
	if after := h.CLI("", "session", "list", "--all"); strings.Contains(after.Stdout, catIDs[0]) {
		return fails("session collect left the cold hydra cat session %s: %s", catIDs[0], r)
	}
	return ok()
}

func cliSessionChanges(h *H) Outcome {
	sid, err := h.ShimSession("write the notes")
	if err != nil {
		return fails("setup: %v", err)
	}
	r := h.CLI("", "session", "changes", "--json")
	if r.Code != 0 {
		return fails("session changes: %s", r)
	}
	if !strings.Contains(r.Stdout, sid) || !strings.Contains(r.Stdout, "notes.txt") {
		return fails("session changes does not name %s editing notes.txt: %s", sid, r)
	}
	return ok()
}

func cliSessionDiff(h *H) Outcome {
	sid, err := h.ShimSession("write the notes")
	if err != nil {
		return fails("setup: %v", err)
	}
	r := h.CLI("", "session", "diff", sid, "--no-pager", "--no-color")
	if r.Code != 0 {
		return fails("session diff: %s", r)
	}
	if !strings.Contains(r.Stdout, "notes.txt") || !strings.Contains(r.Stdout, "+ hello notes") {
		return fails("session diff does not show notes.txt with \"+ hello notes\": %s", r)
	}
	return ok()
}

func cliOK(args ...string) func(h *H) Outcome {
	return func(h *H) Outcome {
		r := h.CLI("", args...)
		if r.Code != 0 {
			return fails("%s: %s", strings.Join(args, " "), r)
		}
		if strings.Contains(strings.ToLower(r.Stderr), "error") {
			return differs("%s printed an error: %s", strings.Join(args, " "), r)
		}
		return ok()
	}
}

func cliAgentList(h *H) Outcome {
	r := h.CLI("", "agent", "list")
	if r.Code != 0 || !strings.Contains(r.Stdout, "troupe") {
		return fails("agent list does not list troupe: %s", r)
	}
	return ok()
}

// --- cat

func catSmall(h *H) Outcome {
	r := h.CLI("hello from a pipe\n", "cat", "-p", "say it back")
	if r.Code != 0 || !strings.Contains(r.Stdout, "hello from a pipe") {
		return fails("cat: %s; want the echoed input", r)
	}
	if strings.Contains(r.Stderr, "restart") || strings.Contains(r.Stderr, "≠") {
		return differs("cat warns: %s", short(r.Stderr))
	}
	return ok()
}

func catLarge(h *H) Outcome {
	var in strings.Builder
	in.WriteString("FIRST-LINE-MARKER\n")
	for i := 0; in.Len() < 1200<<10; i++ {
		fmt.Fprintf(&in, "line %06d of a large piped input, padded to be long enough\n", i)
	}
	r := h.CLI(in.String(), "cat", "-p", "read the head")
	if r.Code != 0 || !strings.Contains(r.Stdout, "READ THE HEAD") {
		return fails("cat of 1.2 MiB: %s; want the answer READ THE HEAD", r)
	}
	for _, m := range h.Sent() {
		up := updateOf(m)
		if up["sessionUpdate"] != "tool_call_update" || up["status"] == nil || up["status"] == "in_progress" || up["status"] == "pending" {
			continue
		}
		b, _ := json.Marshal(up)
		if up["status"] != "completed" || !strings.Contains(string(b), "large piped input") {
			return fails("the agent's read of piped stdin ended %v without the input's text: %s", up["status"], short(string(b)))
		}
		return ok()
	}
	return fails("the agent's read of piped stdin never completed (no tool_call_update reached cat)")
}

func catIntoSession(h *H) Outcome {
	sid, err := h.ShimSession("an editor session")
	if err != nil {
		return fails("setup: %v", err)
	}
	r := h.CLI("", "cat", "--session", sid, "-p", "one more turn")
	if r.Code != 0 || !strings.Contains(r.Stdout, "one more turn") {
		return fails("cat --session %s -p: %s; want the echoed prompt", sid, r)
	}
	return ok()
}

// catModelFlag asks for the model by the id /v1/agents advertises.
func catModelFlag(h *H) Outcome {
	r := h.CLI("hello model\n", "cat", "--model", "openai/fake", "-p", "say it back")
	if r.Code != 0 || !strings.Contains(r.Stdout, "hello model") {
		return fails("cat --model openai/fake (the id /v1/agents advertises): %s", r)
	}
	return ok()
}

// --- the acp shim, as an editor drives it

func acpPrompt(h *H) Outcome {
	s := h.StartShim()
	sid, err := s.Open()
	if err != nil {
		return fails("%v", err)
	}
	t, err := s.Prompt(sid, "hello acp", 60*time.Second)
	if err != nil {
		return fails("%v", err)
	}
	if t.StopReason != "end_turn" || t.Text != "ALPHA BRAVO CHARLIE" || t.Chunks < 3 {
		return fails("prompt answered %q in %d chunks, stop %q; want ALPHA BRAVO CHARLIE streamed in 3, end_turn", t.Text, t.Chunks, t.StopReason)
	}
	return ok()
}

func acpPermission(h *H) Outcome {
	s := h.StartShim()
	s.Permission = AllowOnce
	sid, err := s.Open()
	if err != nil {
		return fails("%v", err)
	}
	t, err := s.Prompt(sid, "run the command", 60*time.Second)
	if err != nil {
		return fails("%v", err)
	}
	if len(s.asked) != 1 {
		return fails("the editor was asked %d permissions, want 1", len(s.asked))
	}
	if t.StopReason != "end_turn" || !strings.Contains(t.Text, "DONE AFTER TOOL") {
		return fails("after allowing, the turn answered %q, stop %q", t.Text, t.StopReason)
	}
	if b, err := os.ReadFile(filepath.Join(h.D.Work, "perm.txt")); err != nil || string(b) != "perm\n" {
		return fails("the allowed command did not run: perm.txt %q, %v", b, err)
	}
	return ok()
}

func acpCancel(h *H) Outcome {
	s := h.StartShim()
	sid, err := s.Open()
	if err != nil {
		return fails("%v", err)
	}
	from := len(s.seen)
	id := s.Request("session/prompt", map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": "start slowly"}}})
	if _, err := s.Wait(from, 30*time.Second, func(m map[string]any) bool { return updateOf(m)["sessionUpdate"] == "agent_message_chunk" }); err != nil {
		return fails("no answer began: %v", err)
	}
	s.Notify("session/cancel", map[string]any{"sessionId": sid})
	m, err := s.Wait(from, 10*time.Second, func(m map[string]any) bool { return isResponse(m, id) })
	if err != nil {
		return fails("session/cancel: the prompt did not end: %v", err)
	}
	t, err := s.turn(from, m)
	if err != nil {
		return fails("%v", err)
	}
	if t.StopReason != "cancelled" {
		return fails("a cancelled prompt stopped with %q, want cancelled", t.StopReason)
	}
	return ok()
}

func acpRestart(h *H) Outcome {
	s := h.StartShim()
	sid, err := s.Open()
	if err != nil {
		return fails("%v", err)
	}
	if _, err := s.Prompt(sid, "first turn", 60*time.Second); err != nil {
		return fails("%v", err)
	}
	h.Restart()
	// The shim reconnects by itself and re-attaches the sessions it
	// tracks (session/attach after_message); the editor prompts once it
	// has.
	for deadline := time.Now().Add(15 * time.Second); !strings.Contains(h.sinceStop(), "> session/attach") && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
	}
	if since := h.sinceStop(); !strings.Contains(since, "> session/attach") {
		var missing []string
		for _, m := range h.Sent() {
			res, _ := m["result"].(map[string]any)
			if res["sessionId"] != sid {
				continue
			}
			meta, _ := res["_meta"].(map[string]any)
			hm, _ := meta["hydra-acp"].(map[string]any)
			for _, k := range []string{"upstreamSessionId", "agentId", "cwd"} {
				if _, has := hm[k]; !has {
					missing = append(missing, k)
				}
			}
			break
		}
		return fails("after troupe daemon restarted, the shim re-attached nothing in 15s (through the proxy since the stop: %s); it tracks a session only when session/new's _meta[\"hydra-acp\"] has upstreamSessionId, agentId and cwd, and troupe's lacks %v", since, missing)
	}
	from := len(s.seen)
	t, err := s.Prompt(sid, "second turn", 60*time.Second)
	if err != nil {
		return fails("after troupe daemon restarted, the shim's next prompt: %v (shim: %s)", err, short(s.Stderr()))
	}
	if !strings.Contains(t.Text, "second turn") {
		return fails("after the restart the prompt answered %q, want the echo of \"second turn\"", t.Text)
	}
	var again int
	for _, m := range s.seen[from:] {
		if up := updateOf(m); up["sessionUpdate"] == "agent_message_chunk" {
			if c, _ := up["content"].(map[string]any); c["text"] == "ALPHA " {
				again++
			}
		}
	}
	if again > 0 {
		return differs("after the restart the editor was sent the first turn's answer again (%d times)", again)
	}
	return ok()
}

func launchShim(h *H) Outcome {
	s := h.startShimVerb("launch", "troupe")
	sid, err := s.Open()
	if err != nil {
		return fails("launch troupe: %v", err)
	}
	t, err := s.Prompt(sid, "hello launch", 60*time.Second)
	if err != nil {
		return fails("launch troupe: %v", err)
	}
	if t.StopReason != "end_turn" || t.Text != "ALPHA BRAVO CHARLIE" {
		return fails("launch troupe: the prompt answered %q, stop %q", t.Text, t.StopReason)
	}
	return ok()
}

// --- the TUI in tmux

const ready = "── Ready · "

// newTUISession starts `tui --new` and picks the agent; it returns the
// TUI ready for a prompt, or why not.
func newTUISession(h *H) (*TUI, string) {
	u := h.StartTUI("--new")
	// With no defaultAgent in config.json the TUI asks which agent; a key
	// sent while the chooser still draws can be lost, so Enter is
	// pressed again while it shows.
	if u.WaitFor(10*time.Second, "Select agent") {
		for i := 0; i < 3; i++ {
			time.Sleep(300 * time.Millisecond)
			u.Keys("Enter")
			if u.WaitFor(5*time.Second, ready) || !strings.Contains(u.Screen(), "Select agent") {
				break
			}
		}
	}
	if !u.WaitFor(15*time.Second, ready) {
		return u, "tui --new never became ready: " + u.Shows()
	}
	return u, ""
}

func tuiPrompt(u *TUI, text string) {
	u.Type(text)
	u.Keys("Enter")
}

func tuiNew(h *H) Outcome {
	u, why := newTUISession(h)
	if why != "" {
		return fails("%s", why)
	}
	tuiPrompt(u, "hello tui")
	if !u.WaitFor(30*time.Second, "ALPHA BRAVO CHARLIE") {
		return fails("the answer ALPHA BRAVO CHARLIE never showed: %s", u.Shows())
	}
	return ok()
}

func tuiPermission(h *H) Outcome {
	u, why := newTUISession(h)
	if why != "" {
		return fails("%s", why)
	}
	tuiPrompt(u, "run the command")
	if !u.WaitFor(30*time.Second, "perm.txt") {
		return fails("no permission request showed: %s", u.Shows())
	}
	u.Keys("1")
	if !u.WaitFor(30*time.Second, "DONE AFTER TOOL") {
		return fails("after 1 (allow) the turn did not finish: %s", u.Shows())
	}
	if _, err := os.Stat(filepath.Join(h.D.Work, "perm.txt")); err != nil {
		return fails("the allowed command did not run: %v", err)
	}
	return ok()
}

// twoSessions makes two prompted editor sessions.
func twoSessions(h *H) ([]string, string) {
	var sids []string
	for _, p := range []string{"first topic", "second topic"} {
		sid, err := h.ShimSession(p)
		if err != nil {
			return nil, fmt.Sprintf("setup: %v", err)
		}
		sids = append(sids, sid)
	}
	return sids, ""
}

func tuiPicker(h *H) Outcome {
	sids, why := twoSessions(h)
	if why != "" {
		return fails("%s", why)
	}
	u := h.StartTUI()
	u.WaitFor(10*time.Second, "SESSION")
	if !u.WaitFor(5*time.Second, sids[0], sids[1]) && !u.WaitFor(time.Second, "first topic", "second topic") {
		return fails("the picker does not list the two prompted sessions (%s): %s", h.lastList(), u.Shows())
	}
	u.Keys("Down")
	u.Keys("Enter")
	if !u.WaitFor(15*time.Second, ready) {
		return fails("Enter on a picked session opened nothing: %s", u.Shows())
	}
	u.Keys("C-p")
	if !u.WaitFor(10*time.Second, "SESSION") || !u.WaitFor(5*time.Second, sids[0]) {
		return fails("^P from a session shows no list of the others: %s", u.Shows())
	}
	return ok()
}

func tuiSearch(h *H) Outcome {
	sids, why := twoSessions(h)
	if why != "" {
		return fails("%s", why)
	}
	u := h.StartTUI()
	if !u.WaitFor(10*time.Second, "SESSION") {
		return fails("no picker: %s", u.Shows())
	}
	// ^F opens the find layer from the session list, so the list must
	// have a row to move down to.
	if !u.WaitFor(5*time.Second, "second topic") && !u.WaitFor(time.Second, sids[1]) {
		return fails("the picker lists no session (%s), so ^F (from the list) cannot be reached", h.lastList())
	}
	u.Keys("Down")
	u.Keys("C-f")
	if !u.WaitFor(10*time.Second, "type a query") {
		return fails("^F opened no find layer: %s", u.Shows())
	}
	u.Type("second")
	u.Keys("Enter")
	// The find layer replaces the list with its results: a count of the
	// sessions matched (one here), each named.
	if !u.WaitFor(15*time.Second, " match") {
		if strings.Contains(u.Screen(), "[tui exited") {
			return fails("^F search crashed the TUI: %s", u.Shows())
		}
		return fails("^F search for \"second\" shows no results: %s", u.Shows())
	}
	scr := u.Screen()
	if !strings.Contains(scr, "1 session match") {
		return differs("^F search for \"second\" matches other than the one session: %s", u.Shows())
	}
	if !strings.Contains(scr, "second topic") && !strings.Contains(scr, sids[1]) {
		return fails("^F search for \"second\" does not name the session that matched (%s): %s", sids[1], u.Shows())
	}
	if strings.Contains(scr, "first topic") || strings.Contains(scr, sids[0]) {
		return differs("^F search for \"second\" also lists the session that does not match (%s)", sids[0])
	}
	return ok()
}

// pickerWithSessions opens the picker over two prompted sessions and
// moves into its list.
func pickerWithSessions(h *H) (*TUI, []string, string) {
	sids, why := twoSessions(h)
	if why != "" {
		return nil, nil, why
	}
	u := h.StartTUI()
	if !u.WaitFor(10*time.Second, "SESSION") {
		return u, sids, "no picker: " + u.Shows()
	}
	if !u.WaitFor(5*time.Second, sids[1]) && !u.WaitFor(time.Second, "second topic") {
		return u, sids, "the picker lists no session (" + h.lastList() + "), so its list keys cannot be reached"
	}
	u.Keys("Down")
	return u, sids, ""
}

func tuiPickerFork(h *H) Outcome {
	u, sids, why := pickerWithSessions(h)
	if why != "" {
		return fails("%s", why)
	}
	u.Keys("f")
	if !u.WaitFor(20*time.Second, ready) {
		return fails("f (fork) opened no session: %s", u.Shows())
	}
	got := ids(u.Screen())
	if len(got) == 0 || contains(sids, got[0]) {
		return fails("f (fork) did not open a new session (screen names %v)", got)
	}
	if !u.WaitFor(5*time.Second, "topic") {
		return differs("the forked session %s shows none of its source's turns", got[0])
	}
	// The daemon has the fork, as a session of its own whose source is
	// one of the two.
	list, r := h.SessionsJSON()
	for _, e := range list {
		if e["sessionId"] != got[0] {
			continue
		}
		if from, _ := e["forkedFromSessionId"].(string); from != "" && !contains(sids, from) {
			return fails("the fork %s says it was forked from %s, none of %v", got[0], from, sids)
		}
		return ok()
	}
	return fails("the fork %s the TUI opened is not in the daemon's list: %s", got[0], r)
}

func tuiPickerKill(h *H) Outcome {
	u, sids, why := pickerWithSessions(h)
	if why != "" {
		return fails("%s", why)
	}
	u.Keys("k")
	if !u.WaitFor(10*time.Second, "[y/N]") {
		return fails("k in the picker asked nothing: %s", u.Shows())
	}
	u.Keys("y")
	// Exactly the session under the cursor goes cold; the other stays
	// warm (both were warm: an editor's session stays warm after it left).
	var r Run
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(300 * time.Millisecond) {
		var list []map[string]any
		list, r = h.SessionsJSON()
		status := map[string]any{}
		for _, e := range list {
			if id, _ := e["sessionId"].(string); contains(sids, id) {
				status[id] = e["status"]
			}
		}
		cold := 0
		for _, id := range sids {
			if status[id] == "cold" {
				cold++
			}
		}
		if cold == 1 && len(status) == 2 {
			for _, id := range sids {
				if st := status[id]; st != "cold" && st != "warm" {
					return fails("after k, y the session left alive says status %v, want warm", st)
				}
			}
			return ok()
		}
		if cold > 1 {
			return fails("after k, y in the picker both sessions went cold: %s", r)
		}
	}
	return fails("after k, y in the picker no session went cold: %s (screen: %s)", r, u.Shows())
}

func tuiReattach(h *H) Outcome {
	u, why := newTUISession(h)
	if why != "" {
		return fails("%s", why)
	}
	tuiPrompt(u, "hello reattach")
	if !u.WaitFor(30*time.Second, "ALPHA BRAVO CHARLIE") {
		return fails("no answer: %s", u.Shows())
	}
	sid := u.SessionIDs()
	u.Keys("C-d")
	if !u.WaitFor(10*time.Second, "[tui exited") {
		return fails("^D did not detach: %s", u.Shows())
	}
	if len(sid) == 0 {
		return fails("the TUI showed no session id")
	}
	u.Restart("--session", sid[0])
	if !u.WaitFor(20*time.Second, ready, "hello reattach", "ALPHA BRAVO CHARLIE") {
		return fails("reattaching to %s does not show its turn: %s", sid[0], u.Shows())
	}
	time.Sleep(time.Second)
	if n := u.Count("ALPHA BRAVO CHARLIE"); n != 1 {
		return differs("after reattaching the answer shows %d times, want once", n)
	}
	return ok()
}

func tuiRestart(h *H) Outcome {
	u, why := newTUISession(h)
	if why != "" {
		return fails("%s", why)
	}
	tuiPrompt(u, "hello restart")
	if !u.WaitFor(30*time.Second, "ALPHA BRAVO CHARLIE") {
		return fails("no answer: %s", u.Shows())
	}
	h.Restart()
	time.Sleep(3 * time.Second)
	if !u.WaitFor(20*time.Second, ready) {
		return fails("after troupe daemon restarted the TUI is not ready: %s", u.Shows())
	}
	tuiPrompt(u, "after the restart")
	if !u.WaitFor(30*time.Second, "after the restart\n") && strings.Count(u.Screen(), "after the restart") < 2 {
		return fails("after troupe daemon restarted a prompt gets no answer: %s", u.Shows())
	}
	time.Sleep(time.Second)
	if n := u.Count("ALPHA BRAVO CHARLIE"); n != 1 {
		return differs("after the daemon restart the first answer shows %d times, want once", n)
	}
	return ok()
}

func tuiShiftTab(h *H) Outcome {
	u, why := newTUISession(h)
	if why != "" {
		return fails("%s", why)
	}
	if !u.WaitFor(5*time.Second, "mode: default") {
		return fails("the bar shows no mode: %s", u.Shows())
	}
	u.Keys("BTab")
	time.Sleep(1500 * time.Millisecond)
	s := u.Screen()
	if strings.Contains(s, "no modes advertised") {
		return fails("Shift-Tab says \"no modes advertised by agent\"; want the next mode (auto_edit)")
	}
	if !u.WaitFor(5*time.Second, "mode: auto_edit") {
		return fails("Shift-Tab did not move to auto_edit: %s", u.Shows())
	}
	return ok()
}

// tuiChooser types verb and expects its chooser (title); afterAttach
// detaches and reattaches first, as a user switching sessions does.
func tuiChooser(verb, title string, afterAttach bool) func(h *H) Outcome {
	return func(h *H) Outcome {
		u, why := newTUISession(h)
		if why != "" {
			return fails("%s", why)
		}
		if afterAttach {
			sid := u.SessionIDs()
			if len(sid) == 0 {
				return fails("the TUI showed no session id: %s", u.Shows())
			}
			u.Keys("C-d")
			u.WaitFor(10*time.Second, "[tui exited")
			u.Restart("--session", sid[0])
			if !u.WaitFor(20*time.Second, ready) {
				return fails("reattach: %s", u.Shows())
			}
		}
		tuiPrompt(u, verb)
		if !u.WaitFor(5*time.Second, "⚙ "+title) {
			return fails("%s shows no %s chooser: %s", verb, title, u.Shows())
		}
		return ok()
	}
}

func tuiRename(h *H) Outcome {
	u, why := newTUISession(h)
	if why != "" {
		return fails("%s", why)
	}
	tuiPrompt(u, "/rename Renamed Topic")
	time.Sleep(2 * time.Second)
	s := u.Screen()
	if strings.Contains(s, "no extension") || strings.Contains(s, "unknown") {
		return fails("/rename Renamed Topic answers %q", u.Answer("/rename"))
	}
	list, r := h.SessionsJSON()
	for _, e := range list {
		if e["title"] == "Renamed Topic" {
			return ok()
		}
	}
	return fails("after /rename no session is titled \"Renamed Topic\": %s", r)
}

func tuiHydraHelp(h *H) Outcome {
	u, why := newTUISession(h)
	if why != "" {
		return fails("%s", why)
	}
	tuiPrompt(u, "/hydra help")
	var missing []string
	u.WaitFor(5*time.Second, "title")
	s := strings.ReplaceAll(u.Screen(), "/hydra help", "")
	for _, verb := range []string{"title", "help", "fork", "uncompact", "kill"} {
		if !strings.Contains(s, verb) {
			missing = append(missing, verb)
		}
	}
	if len(missing) > 0 {
		return fails("/hydra help does not list %s; it answers %q", strings.Join(missing, ", "), u.Answer("/hydra help"))
	}
	return ok()
}

// lastList says what the client's last GET /v1/sessions answered: each
// session's interactive and status (the picker shows interactive ones).
func (h *H) lastList() string {
	recs := h.P.Rec.Records()
	path := map[int]string{}
	out := "the client never listed sessions"
	for _, r := range recs {
		if r.Kind != KindHTTP {
			continue
		}
		if r.Dir == Send {
			path[r.Conn] = r.Method + " " + r.Path
			continue
		}
		p := path[r.Conn]
		if !strings.HasPrefix(p, "GET /v1/sessions") || strings.HasPrefix(p, "GET /v1/sessions/") {
			continue
		}
		var body struct{ Sessions []map[string]any }
		if json.Unmarshal(r.Body, &body) != nil {
			continue
		}
		var each []string
		for _, e := range body.Sessions {
			in, has := e["interactive"]
			if !has {
				in = "absent"
			}
			each = append(each, fmt.Sprintf("interactive %v, status %v", in, e["status"]))
		}
		out = fmt.Sprintf("%s answered %d sessions [%s]", p, len(body.Sessions), strings.Join(each, "; "))
	}
	return out
}

// sinceStop sums up what the client sent through the proxy after the
// daemon last stopped, and what came back.
func (h *H) sinceStop() string {
	recs := h.P.Rec.Records()
	from := 0
	for i, r := range recs {
		if r.Kind == KindStop {
			from = i + 1
		}
	}
	var out []string
	for _, r := range recs[from:] {
		switch {
		case r.Dir == Send && r.Kind == KindHTTP:
			out = append(out, r.Method+" "+r.Path)
		case r.Dir == Send && r.Kind == KindWSOpen:
			out = append(out, "WS "+r.Path)
		case r.Dir == Send && r.Kind == KindWS:
			var m struct{ Method string }
			json.Unmarshal(r.Body, &m) //nolint:errcheck // a reply has none
			out = append(out, "> "+m.Method)
		case r.Dir == Recv && r.Kind != KindWS:
			out = append(out, fmt.Sprintf("%s %d", r.Kind, r.Status+r.Code))
		}
	}
	if len(out) == 0 {
		return "nothing"
	}
	return strings.Join(out, ", ")
}

// --- helpers

func updateOf(m map[string]any) map[string]any {
	if m["method"] != "session/update" {
		return nil
	}
	p, _ := m["params"].(map[string]any)
	up, _ := p["update"].(map[string]any)
	return up
}

func lineWith(text, s string) string {
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, s) {
			return short(l)
		}
	}
	return ""
}

func rowHas(text, id, word string) bool { return strings.Contains(lineWith(text, id), word) }

func hasKey(m map[string]any, k string) bool {
	if _, has := m[k]; has {
		return true
	}
	for _, v := range m {
		if sub, isMap := v.(map[string]any); isMap {
			if _, has := sub[k]; has {
				return true
			}
		}
	}
	return false
}
