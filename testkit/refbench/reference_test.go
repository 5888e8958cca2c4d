//go:build refbench

package refbench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
)

const (
	chunks   = 20000 // what the agent streams for the measured prompt
	attached = 9     // clients attached beside the prompter
	sessions = 100   // sessions created and prompted at once
)

// figures is one daemon's measures in one round.
type figures map[string]float64

// TestReference runs the workloads on troupe's daemon (A, built from
// this tree) and Hydra's (B: HYDRA_CLI is hydra-acp's dist/cli.js, NODE
// its Node 22), alternating A B, B A round after round (REFBENCH_ROUNDS,
// default 3), and prints the medians and ranges side by side; with
// REFBENCH_OUT it also writes the table there.
func TestReference(t *testing.T) {
	cli, node := os.Getenv("HYDRA_CLI"), os.Getenv("NODE")
	if cli == "" {
		t.Skip("HYDRA_CLI (the path of hydra-acp's dist/cli.js) is not set; see BENCHMARKS.md")
	}
	if node == "" {
		node = "node"
	}
	rounds := 3
	if s := os.Getenv("REFBENCH_ROUNDS"); s != "" {
		n, err := strconv.Atoi(s)
		testkit.NoError(t, err)
		rounds = n
	}
	agent := testkit.BuildACPAgent(t)
	kinds := []kind{troupeKind(testkit.BuildTroupe(t)), hydraKind(node, cli)}
	got := map[string][]figures{}
	for r := range rounds {
		order := slices.Clone(kinds)
		if r%2 == 1 {
			slices.Reverse(order)
		}
		floor := figures{}
		floor["stream"] = bareStream(t, agent)
		floor["sessions"] = bareSessions(t, agent)
		got["bare"] = append(got["bare"], floor)
		for _, k := range order {
			f := figures{}
			t.Run(fmt.Sprintf("round%d/%s/stream", r+1, k.name), func(t *testing.T) { stream(t, k, agent, f) })
			t.Run(fmt.Sprintf("round%d/%s/sessions", r+1, k.name), func(t *testing.T) { manySessions(t, k, agent, f) })
			t.Logf("round %d %s: %v", r+1, k.name, f)
			got[k.name] = append(got[k.name], f)
		}
	}
	table := render(rounds, got)
	fmt.Print(table)
	if out := os.Getenv("REFBENCH_OUT"); out != "" {
		testkit.NoError(t, os.WriteFile(out, []byte(table), 0o644))
	}
}

// stream: on a fresh daemon, a warm-up turn, then the 20,000-chunk turn
// to its prompter alone; a second session's turn to the prompter and
// nine clients attached with no history; a fresh client's full replay of
// the first session; the daemon's CPU over all that and its peak memory.
func stream(t *testing.T, k kind, agent string, f figures) {
	d := k.start(t, agent, t.TempDir())
	f["rss-start"] = memMB(t, d.pid, "VmRSS")
	cpu0 := cpu(t, d.pid)
	script := fmt.Sprintf("chunks %d x", chunks)

	c := dial(t, d)
	defer c.ws.Close()
	sid := c.newSession(t, t.TempDir())
	c.prompt(t, 3, sid, "say warm")
	c.untilAnswer(t, 3)
	start := time.Now()
	c.prompt(t, 4, sid, script)
	if n := c.untilAnswer(t, 4); n != chunks {
		t.Fatalf("the prompter got %d chunks, want %d", n, chunks)
	}
	f["one"] = chunks / time.Since(start).Seconds()

	sid2 := c.newSession(t, t.TempDir())
	var others []*client
	for range attached {
		o := dial(t, d)
		defer o.ws.Close()
		o.call(t, 2, "session/attach", map[string]any{"sessionId": sid2, "historyPolicy": "none"})
		others = append(others, o)
	}
	start = time.Now()
	c.prompt(t, 5, sid2, script)
	counts := make([]int, len(others)+1)
	var wg sync.WaitGroup
	for i, o := range others {
		wg.Go(func() { counts[i] = o.untilKind(t, "turn_complete") })
	}
	counts[len(others)] = c.untilAnswer(t, 5)
	wg.Wait()
	f["ten"] = float64((attached+1)*chunks) / time.Since(start).Seconds()
	for i, n := range counts {
		if n != chunks {
			t.Fatalf("client %d got %d chunks, want %d", i, n, chunks)
		}
	}

	// Two fresh clients replay the first session one after the other: the
	// first right after the turns, as a client attaching then would; the
	// second once the daemon has settled whatever the first waited on.
	replay(t, d, sid, f, "replay")
	replay(t, d, sid, f, "replay2")
	f["stream-cpu"] = (cpu(t, d.pid) - cpu0).Seconds()
	f["stream-peak"] = memMB(t, d.pid, "VmHWM")
}

// replay: a fresh client attaches to sid with full history; the time to
// its first agent_message_chunk and to the attach answer, the frames
// before the answer and how many of the 20,000 chunks' x's they hold.
// The frames are kept and decoded after the clock stops.
func replay(t *testing.T, d daemon, sid string, f figures, key string) {
	r := dial(t, d)
	defer r.ws.Close()
	var frames [][]byte
	start := time.Now()
	r.send(t, 2, "session/attach", map[string]any{"sessionId": sid, "historyPolicy": "full"})
	for {
		_, msg, err := r.ws.ReadMessage()
		testkit.NoError(t, err)
		if _, ok := f[key+"-first"]; !ok && bytes.Contains(msg, chunkKind) {
			f[key+"-first"] = ms(time.Since(start))
		}
		if id, _, ok := answer(t, msg); ok && id == 2 {
			break
		}
		frames = append(frames, msg)
	}
	f[key+"-total"] = ms(time.Since(start))
	f[key+"-frames"] = float64(len(frames))
	f[key+"-x"] = float64(strings.Count(replayedText(t, frames), "x"))
}

// manySessions: on a fresh daemon, 100 clients at once, each on its own
// WebSocket, create a session on the agent and prompt it (each session
// starts its own agent program); wall time from the first dial to the
// last answer, the daemon's CPU over it and its peak memory.
func manySessions(t *testing.T, k kind, agent string, f figures) {
	d := k.start(t, agent, t.TempDir())
	cwd := t.TempDir()
	cpu0 := cpu(t, d.pid)
	start := time.Now()
	var wg sync.WaitGroup
	for range sessions {
		wg.Go(func() {
			c := dial(t, d)
			defer c.ws.Close()
			sid := c.newSession(t, cwd)
			c.prompt(t, 3, sid, "say done")
			c.untilAnswer(t, 3)
		})
	}
	wg.Wait()
	f["sessions"] = ms(time.Since(start))
	f["sessions-cpu"] = (cpu(t, d.pid) - cpu0).Seconds()
	f["sessions-peak"] = memMB(t, d.pid, "VmHWM")
}

// bareStream is the agent's own rate with no daemon: the updates per
// second a reader of its stdout (lines counted, not decoded) gets for the
// same prompt, the most a daemon could pass on.
func bareStream(t *testing.T, agent string) float64 {
	a := startBare(t, agent, t.TempDir())
	defer a.stop()
	a.call(t, 1, "initialize", map[string]any{"protocolVersion": 1})
	sid := a.newSession(t, t.TempDir())
	start := time.Now()
	a.send(t, 3, "session/prompt", map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": fmt.Sprintf("chunks %d x", chunks)}}})
	if n := a.until(t, 3); n != chunks {
		t.Fatalf("the bare agent sent %d chunks, want %d", n, chunks)
	}
	return chunks / time.Since(start).Seconds()
}

// bareSessions is the floor of manySessions: 100 agent programs started
// at once, each sent initialize, session/new and the prompt directly.
func bareSessions(t *testing.T, agent string) float64 {
	cwd := t.TempDir()
	start := time.Now()
	var wg sync.WaitGroup
	for range sessions {
		wg.Go(func() {
			a := startBare(t, agent, cwd)
			defer a.stop()
			a.call(t, 1, "initialize", map[string]any{"protocolVersion": 1})
			sid := a.newSession(t, cwd)
			a.send(t, 3, "session/prompt", map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": "say done"}}})
			a.until(t, 3)
		})
	}
	wg.Wait()
	return ms(time.Since(start))
}

// bare is the agent program spoken to over its stdio, no daemon between.
type bare struct {
	cmd *exec.Cmd
	in  interface{ Write([]byte) (int, error) }
	out *bufio.Reader
}

func startBare(t *testing.T, agent, state string) *bare {
	cmd := exec.Command(agent)
	cmd.Env = append(os.Environ(), "ACPAGENT_STATE="+state)
	in, err := cmd.StdinPipe()
	testkit.NoError(t, err)
	out, err := cmd.StdoutPipe()
	testkit.NoError(t, err)
	testkit.NoError(t, cmd.Start())
	return &bare{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}
}

func (a *bare) stop() { _ = a.cmd.Process.Kill(); _ = a.cmd.Wait() }

func (a *bare) send(t *testing.T, id int, method string, params any) {
	line, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	testkit.NoError(t, err)
	_, err = a.in.Write(append(line, '\n'))
	testkit.NoError(t, err)
}

// until reads lines up to the answer to id and counts the chunks before it.
func (a *bare) until(t *testing.T, id int) int {
	n := 0
	for {
		line, err := a.out.ReadBytes('\n')
		testkit.NoError(t, err)
		if bytes.Contains(line, chunkKind) {
			n++
			continue
		}
		if got, _, ok := answer(t, line); ok && got == id {
			return n
		}
	}
}

func (a *bare) call(t *testing.T, id int, method string, params any) {
	a.send(t, id, method, params)
	a.until(t, id)
}

func (a *bare) newSession(t *testing.T, cwd string) string {
	a.send(t, 2, "session/new", map[string]any{"cwd": cwd, "mcpServers": []any{}})
	for {
		line, err := a.out.ReadBytes('\n')
		testkit.NoError(t, err)
		if id, res, ok := answer(t, line); ok && id == 2 {
			var s struct{ SessionID string }
			testkit.NoError(t, json.Unmarshal(res, &s))
			return s.SessionID
		}
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// row is one line of the table: a figure's key, its label and format.
type row struct{ key, label, format string }

var rows = []row{
	{"one", "updates/s to the prompting client alone", "%.0f"},
	{"ten", "deliveries/s to 10 clients (the prompter and 9 attached)", "%.0f"},
	{"replay-first", "attach replay (two turns, 20,001 chunks): first update, ms", "%.1f"},
	{"replay-total", "attach replay: whole replay to the attach answer, ms", "%.1f"},
	{"replay-frames", "attach replay: frames before the answer", "%.0f"},
	{"replay-x", "attach replay: the 20,000 chunks' text replayed (x's)", "%.0f"},
	{"replay2-first", "a second replay, after the first: first update, ms", "%.1f"},
	{"replay2-total", "a second replay: whole replay, ms", "%.1f"},
	{"stream-cpu", "daemon CPU over the stream workload (40,002 chunks, 10 clients, two replays), s", "%.2f"},
	{"rss-start", "daemon resident memory at start, MB", "%.0f"},
	{"stream-peak", "daemon peak resident memory over the stream workload, MB", "%.0f"},
	{"sessions", "100 sessions created and prompted at once, ms (first dial to last answer)", "%.0f"},
	{"sessions-cpu", "daemon CPU over the 100 sessions, s", "%.2f"},
	{"sessions-peak", "daemon peak resident memory over the 100 sessions, MB", "%.0f"},
}

// render is the side-by-side table: each figure's median over the rounds
// and its range, with the bare agent's floors below.
func render(rounds int, got map[string][]figures) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "\n%d rounds, alternating (odd rounds troupe then Hydra, even rounds Hydra then troupe); median (min–max)\n\n", rounds)
	sb.WriteString("| figure | A: troupe daemon | B: Hydra daemon |\n|---|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(&sb, "| %s | %s | %s |\n", r.label, summary(got["troupe"], r), summary(got["hydra"], r))
	}
	fmt.Fprintf(&sb, "| the agent read directly, no daemon (its floor), updates/s | %s | |\n", summary(got["bare"], row{"stream", "", "%.0f"}))
	fmt.Fprintf(&sb, "| 100 bare agents started and prompted at once (the floor), ms | %s | |\n", summary(got["bare"], row{"sessions", "", "%.0f"}))
	// Each round's pairs, so a reader sees whether one daemon leads in
	// every round or only in the medians.
	sb.WriteString("\n| round | updates/s to 1 client, A / B | deliveries/s to 10, A / B | 100 sessions ms, A / B / bare |\n|---|---|---|---|\n")
	for r := range rounds {
		a, b, f := got["troupe"][r], got["hydra"][r], got["bare"][r]
		fmt.Fprintf(&sb, "| %d | %.0f / %.0f | %.0f / %.0f | %.0f / %.0f / %.0f |\n", r+1, a["one"], b["one"], a["ten"], b["ten"], a["sessions"], b["sessions"], f["sessions"])
	}
	return sb.String()
}

func summary(fs []figures, r row) string {
	var v []float64
	for _, f := range fs {
		if x, ok := f[r.key]; ok {
			v = append(v, x)
		}
	}
	if len(v) == 0 {
		return "—"
	}
	slices.Sort(v)
	med := v[len(v)/2]
	if len(v)%2 == 0 {
		med = (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	return fmt.Sprintf(r.format+" ("+r.format+"–"+r.format+")", med, v[0], v[len(v)-1])
}
