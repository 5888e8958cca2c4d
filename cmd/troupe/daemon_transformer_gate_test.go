package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/acpclient"
	"github.com/troupehq/troupe/testkit/llmserver"
	"gopkg.in/yaml.v3"
)

// gateHome is a home whose config.yml has one transformer, "tr",
// intercepting response:session/update and acting on it as env's
// PLUGIN_UPDATES says, in every session's default chain; start
// runs a daemon on it (again after a kill) and waits for tr.
type gateHome struct {
	home, log string
	env       []string
}

func newGateHome(t *testing.T, env map[string]string, extra map[string]any, replies ...llmserver.Reply) *gateHome {
	t.Helper()
	g := &gateHome{home: t.TempDir(), log: filepath.Join(t.TempDir(), "tr.log")}
	env["PLUGIN_INTERCEPTS"], env["PLUGIN_LOG"] = "response:session/update", g.log
	cfg := map[string]any{
		"transformers":        []any{map[string]any{"name": "tr", "command": []string{testkit.BuildPlugin(t)}, "env": env}},
		"defaultTransformers": []string{"tr"},
	}
	for k, v := range extra {
		cfg[k] = v
	}
	b, err := yaml.Marshal(cfg)
	testkit.NoError(t, err)
	testkit.NoError(t, os.WriteFile(filepath.Join(g.home, "config.yml"), b, 0o600))
	fine := llmserver.Steps(llmserver.Text("fine"))
	srv := llmserver.New(t, llmserver.Script{Model: "tiny", Replies: replies, Default: &fine})
	g.env = []string{"OPENAI_BASE_URL=" + srv.URL() + "/v1", "OPENAI_API_KEY="}
	return g
}

func (g *gateHome) start(t *testing.T) *daemonProc { return g.startWith(t, startDaemon) }

// startBinary is start on the troupe binary, for a test that kills it.
func (g *gateHome) startBinary(t *testing.T) *daemonProc { return g.startWith(t, startDaemonBinary) }

func (g *gateHome) startWith(t *testing.T, start func(testing.TB, string, []string, ...string) *daemonProc) *daemonProc {
	t.Helper()
	d := start(t, g.home, g.env, "--provider", "openai", "--model", "tiny", "--approval-mode", "auto_edit")
	d.waitRunning(t, "transformers", "tr", g.log, 0)
	return d
}

// gatedTurn prompts sid from a while w watches; it returns what each was
// shown of the turn (a's up to its answer, w's up to turn_complete).
func gatedTurn(t *testing.T, a, w *acpclient.Client, sid, text string) (got, watched []acpclient.Frame) {
	t.Helper()
	id := a.Prompt(sid, text)
	got = a.Until(func(f acpclient.Frame) bool { return f.Answers(id) })
	testkit.Equal(t, stopReasonOf(t, got[len(got)-1]), "end_turn")
	watched = w.Until(func(f acpclient.Frame) bool { return f.IsUpdate("turn_complete") })
	return got, watched
}

// fullReplay is what a new client attaching with the full history is shown.
func fullReplay(t *testing.T, d *daemonProc, sid string) []acpclient.Frame {
	t.Helper()
	c := d.dialACP(t, "late")
	fs, _ := c.Attach(map[string]any{"sessionId": sid, "historyPolicy": "full"})
	return fs
}

// watchedSession creates a session in cwd from an editor client, with a
// watcher client attached to it from now on.
func watchedSession(t *testing.T, d *daemonProc, cwd string) (editor, watcher *acpclient.Client, sid string) {
	t.Helper()
	editor, watcher = d.dialACP(t, "editor"), d.dialACP(t, "watcher")
	sid, _ = editor.NewSession(cwd)
	watcher.Attach(map[string]any{"sessionId": sid, "historyPolicy": "none"})
	return editor, watcher, sid
}

// A transformer rewriting agent_message_chunk (continue with a payload):
// both attached clients are shown the rewritten text, never the original;
// a client attaching afterwards gets it in its replay, and so does one
// after the daemon is SIGKILLed and started again on the same home.
func TestDaemonTransformerRewritesUpdates(t *testing.T) {
	g := newGateHome(t, map[string]string{"PLUGIN_UPDATES": "upper"}, nil, llmserver.Steps(llmserver.Text("hello "), llmserver.Text("world")))
	// SIGKILLed below: that needs its own process.
	d := g.startBinary(t)
	a, w, sid := watchedSession(t, d, t.TempDir())
	got, watched := gatedTurn(t, a, w, sid, "hi")
	testkit.Equal(t, acpclient.Chunks(t, got), "HELLO WORLD")
	testkit.Equal(t, acpclient.Chunks(t, watched), "HELLO WORLD")
	acpclient.RequireIncreasing(t, got)
	testkit.Equal(t, acpclient.Chunks(t, fullReplay(t, d, sid)), "HELLO WORLD")

	d.proc.Kill()
	d.proc.Wait(t, acpWait)
	d = g.start(t)
	testkit.Equal(t, acpclient.Chunks(t, fullReplay(t, d, sid)), "HELLO WORLD")
	// The decisions are in the log beside what the agent said.
	out, err := exec.Command(testkit.BuildTroupe(t), "events", sid, "--home", d.home).Output()
	testkit.NoError(t, err)
	testkit.Equal(t, strings.Count(string(out), `"kind":"update.transformed"`), 2)
}

// A transformer stopping tool_call and tool_call_update drops them: no
// client is shown the call, live or replayed, while the rest of the turn
// goes out as recorded.
func TestDaemonTransformerDropsToolCalls(t *testing.T) {
	g := newGateHome(t, map[string]string{"PLUGIN_UPDATES": "droptools"}, nil,
		llmserver.Steps(llmserver.ToolCall("c1", "read", `{"path":"notes.txt"}`)), llmserver.Steps(llmserver.Text("done")))
	d := g.start(t)
	dir := t.TempDir()
	testkit.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("secret"), 0o600))
	a, w, sid := watchedSession(t, d, dir)
	got, watched := gatedTurn(t, a, w, sid, "read it")
	replayed := fullReplay(t, d, sid)
	for name, fs := range map[string][]acpclient.Frame{"editor": got, "watcher": watched, "replay": replayed} {
		if n := acpclient.Count(fs, "tool_call") + acpclient.Count(fs, "tool_call_update"); n != 0 {
			t.Fatalf("%s was shown %d tool call updates", name, n)
		}
		testkit.Equal(t, acpclient.Chunks(t, fs), "done")
	}
	testkit.Equal(t, acpclient.Count(watched, "turn_complete"), 1)
}

// processing parks an update until the transformer discharges the claim
// (message/emit with respondsTo): the discharge's envelope is what the
// clients are shown, live and replayed.
func TestDaemonTransformerHoldsUpdates(t *testing.T) {
	g := newGateHome(t, map[string]string{"PLUGIN_UPDATES": "holdupper"}, nil, llmserver.Steps(llmserver.Text("hello "), llmserver.Text("world")))
	d := g.start(t)
	a, w, sid := watchedSession(t, d, t.TempDir())
	got, watched := gatedTurn(t, a, w, sid, "hi")
	testkit.Equal(t, acpclient.Chunks(t, got), "HELLO WORLD")
	testkit.Equal(t, acpclient.Chunks(t, watched), "HELLO WORLD")
	testkit.Equal(t, acpclient.Chunks(t, fullReplay(t, d, sid)), "HELLO WORLD")
}

// A processing claim on an update never discharged is abandoned after
// claimTimeout: the clients are told, and shown the update as recorded.
func TestDaemonTransformerAbandonedUpdateFailsOpen(t *testing.T) {
	g := newGateHome(t, map[string]string{"PLUGIN_UPDATES": "abandon"}, map[string]any{"claimTimeout": "1s"})
	d := g.start(t)
	a, w, sid := watchedSession(t, d, t.TempDir())
	got, watched := gatedTurn(t, a, w, sid, "hi")
	testkit.Equal(t, acpclient.Chunks(t, got), "fine")
	testkit.Equal(t, acpclient.Chunks(t, watched), "fine")
	for _, fs := range [][]acpclient.Frame{got, watched} {
		abandoned := 0
		for _, f := range fs {
			if f.Method == "hydra-acp/transformer/abandoned_request" {
				abandoned++
			}
		}
		testkit.Equal(t, abandoned, 1)
	}
	testkit.Equal(t, acpclient.Chunks(t, fullReplay(t, d, sid)), "fine")
}

// A transformer SIGKILLed mid-turn: the session's clients keep being
// shown its updates (fail-open), every one of them, in order.
func TestDaemonTransformerKilledMidTurnUpdatesFailOpen(t *testing.T) {
	g := newGateHome(t, map[string]string{"PLUGIN_UPDATES": "slowupper"}, nil, llmserver.Steps(llmserver.Tokens(20, "x")))
	d := g.start(t)
	a, w, sid := watchedSession(t, d, t.TempDir())
	id := a.Prompt(sid, "go")
	first := a.Until(func(f acpclient.Frame) bool { return f.IsUpdate("agent_message_chunk") })
	testkit.Equal(t, acpclient.Chunks(t, first), "X")
	in := d.plugin(t, "transformers", "tr")
	testkit.NoError(t, syscall.Kill(in.PID, syscall.SIGKILL))
	got := append(first, a.Until(func(f acpclient.Frame) bool { return f.Answers(id) })...)
	testkit.Equal(t, stopReasonOf(t, got[len(got)-1]), "end_turn")
	watched := w.Until(func(f acpclient.Frame) bool { return f.IsUpdate("turn_complete") })
	acpclient.RequireIncreasing(t, got)
	for _, fs := range [][]acpclient.Frame{got, watched} {
		text := acpclient.Chunks(t, fs)
		testkit.Equal(t, strings.ToLower(text), strings.Repeat("x", 20))
	}
	testkit.Equal(t, acpclient.Chunks(t, fullReplay(t, d, sid)), acpclient.Chunks(t, got))
}

// While the chain is behind (a transformer taking 200 ms an update), the
// chunks waiting behind the one in it make one trip together: the
// transformer gets fewer, longer chunks, the same text; what it rewrites
// is what every client is shown, live, replayed and after a restart.
func TestDaemonTransformerJoinsChunksBehind(t *testing.T) {
	g := newGateHome(t, map[string]string{"PLUGIN_UPDATES": "slowupper"}, nil, llmserver.Steps(llmserver.Tokens(50, "x")))
	// SIGKILLed below: that needs its own process.
	d := g.startBinary(t)
	a, w, sid := watchedSession(t, d, t.TempDir())
	got, watched := gatedTurn(t, a, w, sid, "go")
	want := strings.Repeat("X", 50)
	testkit.Equal(t, acpclient.Chunks(t, got), want)
	testkit.Equal(t, acpclient.Chunks(t, watched), want)
	acpclient.RequireIncreasing(t, got)
	trips, text := 0, ""
	for _, l := range logLines(t, g.log) {
		p, _ := l["params"].(map[string]any)
		if l["method"] == "hydra-acp/transformer/message" && p["method"] == "session/update" {
			u, _ := p["envelope"].(map[string]any)["update"].(map[string]any)
			if u["sessionUpdate"] == "agent_message_chunk" {
				trips++
				text += u["content"].(map[string]any)["text"].(string)
			}
		}
	}
	testkit.Equal(t, text, strings.Repeat("x", 50))
	if trips >= 50 || acpclient.Count(got, "agent_message_chunk") != trips {
		t.Fatalf("%d trips through the chain, %d chunks shown: want fewer than 50, one per trip", trips, acpclient.Count(got, "agent_message_chunk"))
	}
	testkit.Equal(t, acpclient.Chunks(t, fullReplay(t, d, sid)), want)
	d.proc.Kill()
	d.proc.Wait(t, acpWait)
	d = g.start(t)
	testkit.Equal(t, acpclient.Chunks(t, fullReplay(t, d, sid)), want)
}

// More agent updates waiting for the chain than maxUpdateQueue (4,096):
// the waiting ones are let through unchanged, with a warning, and the
// clients get every chunk, live and replayed alike.
func TestDaemonTransformerQueueBoundFailsOpen(t *testing.T) {
	const n = 6000
	g := newGateHome(t, map[string]string{"PLUGIN_UPDATES": "slowupper"}, nil, llmserver.Steps(llmserver.Tokens(n, "x")))
	// The binary: the bound needs the turn to outrun the slow transformer,
	// which a daemon under the race detector may not.
	d := g.startBinary(t)
	a, w, sid := watchedSession(t, d, t.TempDir())
	got, watched := gatedTurn(t, a, w, sid, "go")
	text := acpclient.Chunks(t, got)
	testkit.Equal(t, strings.ToLower(text), strings.Repeat("x", n))
	if !strings.Contains(text, "X") || !strings.Contains(text, "x") {
		t.Fatalf("want the first chunks rewritten and the rest let through; got %d upper case of %d", strings.Count(text, "X"), n)
	}
	testkit.Equal(t, acpclient.Chunks(t, watched), text)
	testkit.Equal(t, acpclient.Chunks(t, fullReplay(t, d, sid)), text)
	if !strings.Contains(d.proc.Stderr(), "the response chain is behind") {
		t.Fatalf("no warning on stderr:\n%s", d.proc.Stderr())
	}
}

// A transformer attaching itself to a live session whose chain had no
// response:session/update intercept gates its updates from then on: to a
// session with no chain (its link starts), and to one whose link runs for
// another transformer.
func TestDaemonTransformerAttachedGatesUpdates(t *testing.T) {
	t.Run("no chain", func(t *testing.T) { attachedGates(t, false) })
	t.Run("link running", func(t *testing.T) { attachedGates(t, true) })
}

func attachedGates(t *testing.T, other bool) {
	extra := map[string]any{"defaultTransformers": []string{}}
	var obsLog string
	if other {
		obsLog = filepath.Join(t.TempDir(), "obs.log")
		extra["defaultTransformers"] = []string{"obs"}
	}
	g := newGateHome(t, map[string]string{"PLUGIN_UPDATES": "upper", "PLUGIN_COMMANDS": "1"}, extra)
	if other {
		b, err := os.ReadFile(filepath.Join(g.home, "config.yml"))
		testkit.NoError(t, err)
		var cfg map[string]any
		testkit.NoError(t, yaml.Unmarshal(b, &cfg))
		cfg["transformers"] = append(cfg["transformers"].([]any), map[string]any{"name": "obs", "command": []string{testkit.BuildPlugin(t)},
			"env": map[string]string{"PLUGIN_INTERCEPTS": "lifecycle:session.opened", "PLUGIN_LOG": obsLog}})
		b, err = yaml.Marshal(cfg)
		testkit.NoError(t, err)
		testkit.NoError(t, os.WriteFile(filepath.Join(g.home, "config.yml"), b, 0o600))
	}
	d := g.start(t)
	waitProbe(t, g.log, "commands/register")
	if other {
		d.waitRunning(t, "transformers", "obs", obsLog, 0)
	}
	a, w, sid := watchedSession(t, d, t.TempDir())
	got, watched := gatedTurn(t, a, w, sid, "before")
	testkit.Equal(t, acpclient.Chunks(t, got), "fine")
	testkit.Equal(t, acpclient.Chunks(t, watched), "fine")
	gatedTurn(t, a, w, sid, "/hydra tr attach")
	got, watched = gatedTurn(t, a, w, sid, "after")
	testkit.Equal(t, acpclient.Chunks(t, got), "FINE")
	testkit.Equal(t, acpclient.Chunks(t, watched), "FINE")
	if replay := acpclient.Chunks(t, fullReplay(t, d, sid)); !strings.HasPrefix(replay, "fine") || !strings.HasSuffix(replay, "FINE") {
		t.Fatalf("replayed %q", replay)
	}
}
