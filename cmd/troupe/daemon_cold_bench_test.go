package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/acpclient"
	"github.com/troupehq/troupe/testkit/coldstore"
)

// BenchmarkDaemonColdSessions: what 100,000 cold sessions in the daemon's
// home cost (COLD_SESSIONS overrides the count; COLD_ROUNDS, default 7,
// the rounds), each figure the median of its rounds with its range, all
// through the real binary's public interfaces. The store is seeded
// through persistence (testkit/coldstore: a row and a 16-event log of one
// finished turn each, 10 directories, every 50th session troupe cat's),
// not through actors. Start-up: process start to the first /v1/health
// answer and the resident memory then, on an empty home and on the
// seeded one, alternating. Then, against one daemon on the seeded home:
// GET /v1/sessions as Hydra's CLI and picker ask for it (every session),
// one directory's (cwd=), the warm ones (status=warm, what Hydra's
// workspaces poll), a page of 100 at the head and one past the middle
// (limit, cursor); ACP session/list's first page; troupe session list to
// its exit; a search for a word one session holds; the daemon's resident
// memory after all of it, and how many sessions it hosts then (0: none
// was started).
func BenchmarkDaemonColdSessions(b *testing.B) {
	n := envInt("COLD_SESSIONS", 100_000)
	rounds := envInt("COLD_ROUNDS", 7)
	bin := testkit.BuildTroupe(b)
	seeded := b.TempDir()
	t0 := time.Now()
	testkit.NoError(b, coldstore.Seed(context.Background(), filepath.Join(seeded, "troupe.db"), n, coldstore.Options{Piped: 50}))
	b.Logf("seeded %d cold sessions in %s", n, time.Since(t0).Round(time.Millisecond))
	for b.Loop() {
		var startEmpty, startSeeded, rssEmpty, rssSeeded []float64
		for range rounds {
			d, mem := startToHealth(b, bin, b.TempDir())
			startEmpty, rssEmpty = append(startEmpty, ms(d)), append(rssEmpty, mem)
			d, mem = startToHealth(b, bin, seeded)
			startSeeded, rssSeeded = append(startSeeded, ms(d)), append(rssSeeded, mem)
		}
		reportSpread(b, "start-empty-ms", startEmpty)
		reportSpread(b, "start-cold-ms", startSeeded)
		reportSpread(b, "rss-empty-MB", rssEmpty)
		reportSpread(b, "rss-cold-MB", rssSeeded)

		d := runColdDaemon(b, bin, seeded)
		// The cursor past the middle of the list, walked to in pages of
		// 10,000 (a daemon that pages nothing answers no cursor: its
		// page past the middle is the whole list again).
		var head struct {
			NextCursor string `json:"nextCursor"`
		}
		for walked := 0; walked < n/2; walked += 10_000 {
			path := "/v1/sessions?limit=10000"
			if head.NextCursor != "" {
				path += "&cursor=" + url.QueryEscape(head.NextCursor)
			}
			testkit.NoError(b, json.Unmarshal(d.get(b, path, nil), &head))
		}
		figures := []struct {
			name string
			run  func()
		}{
			{"rest-all-ms", func() { d.get(b, "/v1/sessions", nil) }},
			{"rest-cwd-ms", func() { d.get(b, "/v1/sessions?cwd="+url.QueryEscape(coldstore.Dir(3)), nil) }},
			{"rest-warm-ms", func() { d.get(b, "/v1/sessions?status=warm&includeNonInteractive=true", nil) }},
			{"rest-page-ms", func() { d.get(b, "/v1/sessions?limit=100", nil) }},
			{"rest-page-mid-ms", func() { d.get(b, "/v1/sessions?limit=100&cursor="+url.QueryEscape(head.NextCursor), nil) }},
			{"acp-list-ms", func() { d.acpList(b) }},
			{"cli-list-ms", func() { d.cliList(b, bin) }},
			{"search-ms", func() {
				d.get(b, "/v1/sessions/search", map[string]any{"q": coldstore.Word(n / 3)})
			}},
		}
		took := make([][]float64, len(figures))
		for range rounds {
			for k, f := range figures {
				start := time.Now()
				f.run()
				took[k] = append(took[k], ms(time.Since(start)))
			}
		}
		for k, f := range figures {
			reportSpread(b, f.name, took[k])
		}
		b.ReportMetric(vmRSS(b, d.cmd.Process.Pid), "rss-after-MB")
		b.ReportMetric(d.liveSessions(b), "live-sessions")
		d.stop()
	}
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// reportSpread reports the median of xs and its range.
func reportSpread(b *testing.B, name string, xs []float64) {
	slices.Sort(xs)
	b.ReportMetric(xs[len(xs)/2], name+"(median)")
	b.ReportMetric(xs[0], name+"(min)")
	b.ReportMetric(xs[len(xs)-1], name+"(max)")
}

// coldDaemon is the daemon binary on a seeded home.
type coldDaemon struct {
	cmd   *exec.Cmd
	home  string
	url   string
	token string
}

func runColdDaemon(b *testing.B, bin, home string) *coldDaemon {
	cmd := exec.Command(bin, "daemon", "--home", home, "--listen", "127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	testkit.NoError(b, err)
	testkit.NoError(b, cmd.Start())
	d := &coldDaemon{cmd: cmd, home: home}
	b.Cleanup(d.stop)
	sc := bufio.NewScanner(stderr)
	for d.url == "" && sc.Scan() {
		if u, ok := strings.CutPrefix(sc.Text(), "troupe daemon: listening on "); ok {
			d.url = u
		}
	}
	if d.url == "" {
		b.Fatal("the daemon never said where it listens")
	}
	go func() { // keep draining stderr so the daemon never blocks on it
		for sc.Scan() {
		}
	}()
	tok, err := os.ReadFile(filepath.Join(home, "auth-token"))
	testkit.NoError(b, err)
	d.token = strings.TrimSpace(string(tok))
	return d
}

func (d *coldDaemon) stop() {
	if d.cmd.ProcessState != nil {
		return
	}
	_ = d.cmd.Process.Signal(syscall.SIGTERM)
	_ = d.cmd.Wait()
}

// get GETs path (POSTs body when there is one) and reads the answer.
func (d *coldDaemon) get(b *testing.B, path string, body any) []byte {
	method, in := http.MethodGet, io.Reader(nil)
	if body != nil {
		raw, err := json.Marshal(body)
		testkit.NoError(b, err)
		method, in = http.MethodPost, bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, d.url+path, in)
	testkit.NoError(b, err)
	req.Header.Set("Authorization", "Bearer "+d.token)
	res, err := http.DefaultClient.Do(req)
	testkit.NoError(b, err)
	defer res.Body.Close()
	out, err := io.ReadAll(res.Body)
	testkit.NoError(b, err)
	if res.StatusCode != http.StatusOK {
		b.Fatalf("%s %s: %d %s", method, path, res.StatusCode, out)
	}
	return out
}

// acpList asks a fresh ACP connection for session/list's first page.
func (d *coldDaemon) acpList(b *testing.B) {
	dialer := websocket.Dialer{Subprotocols: acpclient.WithToken(d.token)}
	ws, _, err := dialer.Dial(acpclient.URL(d.url, "/acp", ""), nil)
	testkit.NoError(b, err)
	defer ws.Close()
	testkit.NoError(b, ws.WriteJSON(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "session/list", "params": map[string]any{}}))
	for {
		var f struct {
			ID     *int            `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		testkit.NoError(b, ws.ReadJSON(&f))
		if f.ID == nil || *f.ID != 1 {
			continue
		}
		if f.Error != nil {
			b.Fatalf("session/list: %s", f.Error)
		}
		return
	}
}

// cliList runs troupe session list against the daemon to its exit.
func (d *coldDaemon) cliList(b *testing.B, bin string) {
	cmd := exec.Command(bin, "session", "list")
	cmd.Env = append(os.Environ(), "TROUPE_HOME="+d.home)
	cmd.Stdout = io.Discard
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		b.Fatalf("troupe session list: %v: %s", err, stderr.String())
	}
}

// liveSessions is how many sessions the daemon hosts (troupe_sessions,
// live and busy).
func (d *coldDaemon) liveSessions(b *testing.B) float64 {
	var n float64
	for _, line := range strings.Split(string(d.get(b, "/metrics", nil)), "\n") {
		for _, state := range []string{`state="live"`, `state="busy"`} {
			if strings.HasPrefix(line, "troupe_sessions{") && strings.Contains(line, state) {
				f := strings.Fields(line)
				v, err := strconv.ParseFloat(f[len(f)-1], 64)
				testkit.NoError(b, err)
				n += v
			}
		}
	}
	return n
}
