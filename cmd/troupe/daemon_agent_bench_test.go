package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/troupehq/troupe/testkit"
)

// agentChunks is what the scripted agent streams for one prompt.
const agentChunks = 20000

// BenchmarkDaemonAgentStream: the scripted ACP agent streams 20,000
// agent_message_chunks for one prompt through the daemon binary, every
// one recorded before it is sent on. It reports the updates per second
// one prompting client receives, the deliveries per second to ten
// clients (the prompter and nine attached), a fresh client's full replay
// of that turn (first update, whole replay), and the daemon's CPU time
// and peak resident memory over the run; and, for scale, the rate of the
// same agent read directly with no daemon between (its floor).
func BenchmarkDaemonAgentStream(b *testing.B) {
	home, _ := scriptedAgentHome(b, nil)
	d := startDaemonBinary(b, home, nil)
	url := "ws" + strings.TrimPrefix(d.url, "http") + "/acp"
	script := fmt.Sprintf("chunks %d x", agentChunks)
	var one, ten, first, replay []time.Duration
	var floors []float64
	cpu0 := procCPU(b, d.proc.Pid())
	for b.Loop() {
		c := dialBench(b, url, d.token)
		sid := c.newAgentSession(b, b.TempDir())
		c.prompt(b, 3, sid, "say warm")
		c.readUntil(b, []byte(`"id":3,`))

		start := time.Now()
		c.prompt(b, 4, sid, script)
		n := c.readUntil(b, []byte(`"id":4,`))
		one = append(one, time.Since(start))
		if n != agentChunks {
			b.Fatalf("the prompter got %d chunks, want %d", n, agentChunks)
		}

		// Ten clients: the prompter and nine attached.
		sid2 := c.newAgentSession(b, b.TempDir())
		var others []*benchClient
		for range 9 {
			o := dialBench(b, url, d.token)
			o.call(b, 2, "session/attach", map[string]any{"sessionId": sid2, "historyPolicy": "none"})
			others = append(others, o)
		}
		start = time.Now()
		c.prompt(b, 5, sid2, script)
		var wg sync.WaitGroup
		counts := make([]int, len(others)+1)
		for i, o := range others {
			wg.Go(func() { counts[i] = o.readUntil(b, []byte(`"turn_complete"`)) })
		}
		counts[len(others)] = c.readUntil(b, []byte(`"id":5,`))
		wg.Wait()
		ten = append(ten, time.Since(start))
		for i, got := range counts {
			if got != agentChunks {
				b.Fatalf("client %d got %d chunks, want %d", i, got, agentChunks)
			}
		}

		// A fresh client replays the first session: its two turns.
		r := dialBench(b, url, d.token)
		start = time.Now()
		r.send(b, 2, "session/attach", map[string]any{"sessionId": sid, "historyPolicy": "full"})
		r.readUntil(b, []byte(`"agent_message_chunk"`))
		first = append(first, time.Since(start))
		r.readUntil(b, []byte(`"id":2,`))
		replay = append(replay, time.Since(start))
		for _, cl := range append(others, c, r) {
			cl.ws.Close()
		}
		floors = append(floors, agentFloor(b, testkit.BuildACPAgent(b)))
	}
	slices.Sort(floors)
	b.ReportMetric(floors[len(floors)/2], "updates/s-bare-agent")
	b.ReportMetric(float64(agentChunks)/median(one).Seconds(), "updates/s-1client")
	b.ReportMetric(float64(10*agentChunks)/median(ten).Seconds(), "deliveries/s-10clients")
	b.ReportMetric(float64(median(first).Microseconds())/1000, "ms-replay-first")
	b.ReportMetric(float64(median(replay).Microseconds())/1000, "ms-replay-total")
	b.ReportMetric((procCPU(b, d.proc.Pid())-cpu0).Seconds()/float64(b.N), "daemon-cpu-s/op")
	b.ReportMetric(float64(procKB(b, d.proc.Pid(), "VmHWM"))/1024, "daemon-MB-peak")
}

// benchClient is a bare ACP WebSocket client that counts chunks rather
// than decoding every frame, and reads every frame into one buffer, so
// the client (on the same two cores as the daemon) costs the measure
// little.
type benchClient struct {
	ws  *websocket.Conn
	buf bytes.Buffer
}

// next reads the next frame; it is valid until the next call.
func (c *benchClient) next(b *testing.B) []byte {
	_, r, err := c.ws.NextReader()
	testkit.NoError(b, err)
	c.buf.Reset()
	_, err = c.buf.ReadFrom(r)
	testkit.NoError(b, err)
	return c.buf.Bytes()
}

func dialBench(b *testing.B, url, token string) *benchClient {
	dl := websocket.Dialer{Subprotocols: []string{"acp.v1", "hydra-acp-token." + token}}
	ws, _, err := dl.Dial(url, nil)
	testkit.NoError(b, err)
	_ = ws.SetReadDeadline(time.Now().Add(5 * time.Minute))
	c := &benchClient{ws: ws}
	c.call(b, 1, "initialize", map[string]any{"protocolVersion": 1})
	return c
}

func (c *benchClient) send(b *testing.B, id int, method string, params any) {
	testkit.NoError(b, c.ws.WriteJSON(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
}

// call sends a request and reads up to its answer, which it returns.
func (c *benchClient) call(b *testing.B, id int, method string, params any) json.RawMessage {
	c.send(b, id, method, params)
	want := []byte(fmt.Sprintf(`"id":%d,`, id))
	for {
		msg := c.next(b)
		if bytes.Contains(msg, want) && !bytes.Contains(msg, []byte(`"method"`)) {
			var r struct {
				Result json.RawMessage `json:"result"`
				Error  *struct{ Message string }
			}
			testkit.NoError(b, json.Unmarshal(msg, &r))
			if r.Error != nil {
				b.Fatalf("%s: %s", method, r.Error.Message)
			}
			return r.Result
		}
	}
}

func (c *benchClient) newAgentSession(b *testing.B, cwd string) string {
	res := c.call(b, 2, "session/new", map[string]any{"cwd": cwd, "mcpServers": []any{},
		"_meta": map[string]any{"hydra-acp": map[string]any{"agentId": "scripted"}}})
	var s struct{ SessionID string }
	testkit.NoError(b, json.Unmarshal(res, &s))
	return s.SessionID
}

func (c *benchClient) prompt(b *testing.B, id int, sid, text string) {
	c.send(b, id, "session/prompt", map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": text}}})
}

// readUntil reads frames up to one containing end (an answer that is not
// a request or notification, or an update kind) and counts the
// agent_message_chunks before it.
func (c *benchClient) readUntil(b *testing.B, end []byte) int {
	n := 0
	chunk := []byte(`"agent_message_chunk"`)
	answer := bytes.HasPrefix(end, []byte(`"id":`))
	for {
		msg := c.next(b)
		if bytes.Contains(msg, end) && (!answer || !bytes.Contains(msg, []byte(`"method"`))) {
			return n
		}
		if bytes.Contains(msg, chunk) {
			n++
		}
	}
}

// agentFloor is the scripted agent's own rate with no daemon: the
// updates per second a client reading its stdout directly (lines counted,
// not decoded) gets for the same prompt, the most the daemon could pass on.
func agentFloor(b *testing.B, bin string) float64 {
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "ACPAGENT_STATE="+b.TempDir())
	in, err := cmd.StdinPipe()
	testkit.NoError(b, err)
	out, err := cmd.StdoutPipe()
	testkit.NoError(b, err)
	testkit.NoError(b, cmd.Start())
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	r := bufio.NewReaderSize(out, 1<<20)
	send := func(id int, method string, params any) {
		line, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		testkit.NoError(b, err)
		_, err = in.Write(append(line, '\n'))
		testkit.NoError(b, err)
	}
	until := func(id int) (int, []byte) {
		want := []byte(fmt.Sprintf(`"id":%d,`, id))
		n := 0
		for {
			line, err := r.ReadBytes('\n')
			testkit.NoError(b, err)
			if bytes.Contains(line, want) {
				return n, line
			}
			n++
		}
	}
	send(1, "initialize", map[string]any{"protocolVersion": 1})
	until(1)
	send(2, "session/new", map[string]any{"cwd": b.TempDir(), "mcpServers": []any{}})
	_, res := until(2)
	var s struct{ Result struct{ SessionID string } }
	testkit.NoError(b, json.Unmarshal(res, &s))
	start := time.Now()
	send(3, "session/prompt", map[string]any{"sessionId": s.Result.SessionID, "prompt": []any{map[string]any{"type": "text", "text": fmt.Sprintf("chunks %d x", agentChunks)}}})
	n, _ := until(3)
	if n != agentChunks {
		b.Fatalf("the bare agent sent %d updates, want %d", n, agentChunks)
	}
	return float64(agentChunks) / time.Since(start).Seconds()
}

// BenchmarkDaemonAgentSessions: 100 clients at once, each on its own
// WebSocket, create a session on the scripted ACP agent and prompt it
// (each session starts its own agent program); wall time from the first
// dial to the last answer. Its floor, reported beside it: 100 of the same
// agent programs started at once and sent initialize, session/new and the
// prompt directly.
func BenchmarkDaemonAgentSessions(b *testing.B) {
	const sessions = 100
	home, _ := scriptedAgentHome(b, nil)
	d := startDaemonBinary(b, home, nil)
	url := "ws" + strings.TrimPrefix(d.url, "http") + "/acp"
	bin := testkit.BuildACPAgent(b)
	var walls, floors []time.Duration
	for b.Loop() {
		cwd := b.TempDir()
		start := time.Now()
		var wg sync.WaitGroup
		for range sessions {
			wg.Go(func() {
				c := dialBench(b, url, d.token)
				defer c.ws.Close()
				sid := c.newAgentSession(b, cwd)
				c.prompt(b, 3, sid, "say done")
				c.readUntil(b, []byte(`"id":3,`))
			})
		}
		wg.Wait()
		walls = append(walls, time.Since(start))

		start = time.Now()
		for range sessions {
			wg.Go(func() { bareAgentTurn(b, bin, cwd) })
		}
		wg.Wait()
		floors = append(floors, time.Since(start))
	}
	b.ReportMetric(float64(median(walls).Microseconds())/1000, "ms-wall(median)")
	b.ReportMetric(float64(median(floors).Microseconds())/1000, "ms-bare-agents(median)")
}

// bareAgentTurn starts the agent program and runs one prompt with it
// directly: initialize, session/new, session/prompt to its answer.
func bareAgentTurn(b *testing.B, bin, cwd string) {
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "ACPAGENT_STATE="+cwd)
	in, err := cmd.StdinPipe()
	testkit.NoError(b, err)
	out, err := cmd.StdoutPipe()
	testkit.NoError(b, err)
	testkit.NoError(b, cmd.Start())
	defer func() { _ = in.Close(); _ = cmd.Wait() }()
	r := bufio.NewReader(out)
	call := func(id int, method string, params any) []byte {
		line, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		testkit.NoError(b, err)
		_, err = in.Write(append(line, '\n'))
		testkit.NoError(b, err)
		want := []byte(fmt.Sprintf(`"id":%d,`, id))
		for {
			line, err := r.ReadBytes('\n')
			testkit.NoError(b, err)
			if bytes.Contains(line, want) {
				return line
			}
		}
	}
	call(1, "initialize", map[string]any{"protocolVersion": 1})
	var s struct{ Result struct{ SessionID string } }
	testkit.NoError(b, json.Unmarshal(call(2, "session/new", map[string]any{"cwd": cwd, "mcpServers": []any{}}), &s))
	call(3, "session/prompt", map[string]any{"sessionId": s.Result.SessionID, "prompt": []any{map[string]any{"type": "text", "text": "say done"}}})
}
