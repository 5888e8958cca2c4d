package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
)

// The chunk latency probe of BenchmarkDaemonScale: one more session, on a
// connection of its own, prompted every probePeriod while the load runs.
// The model's reply to it is probeDeltas text deltas probeGap apart, each
// carrying the time it was written ("@<ns since the clock>;"); the probe's
// client reads each agent_message_chunk and subtracts the stamp from the
// time it read the frame. Both ends are in the benchmark's process on one
// monotonic clock, and the daemon needs nothing added: what is measured is
// the model's write of a delta to the client's read of its update (the
// HTTP stream into the daemon, the event, its group commit, the fan-out,
// the ACP frame, the WebSocket out), so an upper bound of the commit to
// subscriber latency, taken while N other sessions stream.
const (
	probeMarker = "chunk latency probe"
	probeDeltas = 100
	probeGap    = 2 * time.Millisecond
	probePeriod = 500 * time.Millisecond
)

// probeReply streams the probe's stamped deltas as a chat completion.
func probeReply(w http.ResponseWriter, r *http.Request, clock time.Time) {
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	for i := range probeDeltas {
		if i > 0 {
			select {
			case <-r.Context().Done():
				return
			case <-time.After(probeGap):
			}
		}
		frame := fmt.Appendf(nil, `data: {"id":"probe","object":"chat.completion.chunk","created":0,"model":"tiny",`+
			`"choices":[{"index":0,"delta":{"content":"@%d;"},"finish_reason":null}]}`+"\n\n", time.Since(clock).Nanoseconds())
		if _, err := w.Write(frame); err != nil {
			return
		}
		if err := rc.Flush(); err != nil {
			return
		}
	}
	_, _ = w.Write([]byte(`data: {"id":"probe","object":"chat.completion.chunk","created":0,"model":"tiny",` +
		`"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\ndata: [DONE]\n\n"))
	_ = rc.Flush()
}

// latencyProbe is the probe's client. Its goroutine (loop) is started
// by measure and stopped by stop.
type latencyProbe struct {
	conn    *scaleConn
	session string
	clock   time.Time

	mu  sync.Mutex
	on  bool            // recording: between measure and stop
	lat []time.Duration // guarded by mu

	quit chan struct{}
	done chan error
}

// startProbe dials the probe's connection and creates its session in cwd,
// before the load starts.
func startProbe(b testing.TB, d *daemonProc, cwd string, clock time.Time) *latencyProbe {
	p := &latencyProbe{clock: clock, quit: make(chan struct{}), done: make(chan error, 1)}
	c, err := dialScale(d.wsURL(""), d.token, p.frame)
	testkit.NoError(b, err)
	b.Cleanup(c.close)
	p.conn = c
	res, err := c.call("session/new", map[string]any{"cwd": cwd, "mcpServers": []any{}})
	testkit.NoError(b, err)
	var s struct{ SessionID string }
	if err := json.Unmarshal(res, &s); err != nil || s.SessionID == "" {
		b.Fatalf("probe's session/new answered %s", res)
	}
	p.session = s.SessionID
	return p
}

// measure starts recording and prompting.
func (p *latencyProbe) measure() {
	p.mu.Lock()
	p.on = true
	p.mu.Unlock()
	go p.loop()
}

// stop ends recording, waits for the prompt in flight, and returns the
// latencies recorded.
func (p *latencyProbe) stop() ([]time.Duration, error) {
	p.mu.Lock()
	p.on = false
	lat := p.lat
	p.mu.Unlock()
	close(p.quit)
	return lat, <-p.done
}

// loop prompts the probe's session every probePeriod (or as soon as the
// last answer came, if that took longer) until quit.
func (p *latencyProbe) loop() {
	for k := 1; ; k++ {
		next := time.Now().Add(probePeriod)
		res, err := p.conn.call("session/prompt", map[string]any{"sessionId": p.session,
			"prompt": []any{map[string]any{"type": "text", "text": fmt.Sprintf("%s %d", probeMarker, k)}}})
		if err != nil {
			p.done <- fmt.Errorf("probe prompt %d: %w", k, err)
			return
		}
		if !bytes.Contains(res, []byte(`"end_turn"`)) {
			p.done <- fmt.Errorf("probe prompt %d answered %s, want end_turn", k, res)
			return
		}
		select {
		case <-p.quit:
			p.done <- nil
			return
		case <-time.After(time.Until(next)):
		}
	}
}

// frame records the latency of each stamp in an agent_message_chunk of
// the probe's session; it runs on the connection's reader, as the frame is
// read.
func (p *latencyProbe) frame(msg []byte) {
	at := time.Since(p.clock)
	if !bytes.Contains(msg, []byte(`"agent_message_chunk"`)) {
		return
	}
	var f struct {
		Params struct {
			SessionID string `json:"sessionId"`
			Update    struct {
				Content struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"update"`
		} `json:"params"`
	}
	if err := json.Unmarshal(msg, &f); err != nil || f.Params.SessionID != p.session {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.on {
		return
	}
	// The daemon may carry more than one delta in a frame.
	for stamp := range strings.SplitSeq(f.Params.Update.Content.Text, ";") {
		ns, err := strconv.ParseInt(strings.TrimPrefix(stamp, "@"), 10, 64)
		if err != nil || !strings.HasPrefix(stamp, "@") {
			continue
		}
		p.lat = append(p.lat, at-time.Duration(ns))
	}
}

// reportChunkLatency reports the probe's median and 99th percentile, and
// how many deltas they are of.
func reportChunkLatency(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		b.Logf("the probe read no chunk while the load ran: no chunk latency")
		return
	}
	slices.Sort(lat)
	q := func(f float64) float64 { return float64(lat[int(f*float64(len(lat)-1))].Nanoseconds()) / 1e3 }
	b.ReportMetric(q(0.5), "µs-chunk-p50")
	b.ReportMetric(q(0.99), "µs-chunk-p99")
	b.ReportMetric(float64(len(lat)), "chunks-probed")
}
