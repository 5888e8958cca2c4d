//go:build hydracompat

package hydracompat

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/troupehq/troupe/runtime/pidfile"
	"github.com/troupehq/troupe/testkit"
)

var update = flag.Bool("update", os.Getenv("HYDRA_COMPAT_UPDATE") != "", "write each passing row's recording into testdata/<row>.jsonl")

// Row results.
const (
	OK      = "ok"      // the client did what it does against Hydra's daemon
	Differs = "differs" // it worked, but showed something other than Hydra's
	Fails   = "fails"   // it did not work
)

// Outcome is one row's result; Reason says what the client showed against
// what it should show.
type Outcome struct{ Status, Reason string }

func ok() Outcome                             { return Outcome{OK, ""} }
func differs(format string, a ...any) Outcome { return Outcome{Differs, fmt.Sprintf(format, a...)} }
func fails(format string, a ...any) Outcome   { return Outcome{Fails, fmt.Sprintf(format, a...)} }

// H is one row's world: a fresh troupe home and daemon, the proxy the
// client dials, and the client.
type H struct {
	t      *testing.T
	node   string
	cli    string
	D      *Daemon
	P      *Proxy
	config string
	env    []string // the client's environment
	info   pidfile.Info
	watch  *watcher
	// restarting is set while Restart starts the daemon again.
	restarting bool
}

type tools struct{ node, cli, troupe, fakeLlama string }

func newH(t *testing.T, tl tools, script string) *H {
	t.Helper()
	d := StartDaemon(t, DaemonOptions{Troupe: tl.troupe, FakeLlama: tl.fakeLlama, Script: script})
	p, err := StartProxy(d.Listen)
	testkit.NoError(t, err)
	t.Cleanup(func() { p.Close() })
	h := &H{t: t, node: tl.node, cli: tl.cli, D: d, P: p}
	h.config = fmt.Sprintf(`{"daemon":{"host":"127.0.0.1","port":%d}}`, p.Port())
	testkit.NoError(t, os.WriteFile(filepath.Join(d.Home, "config.json"), []byte(h.config), 0o600))
	d.OnStart = func(info pidfile.Info) {
		if h.restarting {
			h.P.Rec.Add(Record{Kind: KindStart})
		}
		h.info = info
		d.Redirect(info, p.Port())
	}
	d.Start()
	clientHome := t.TempDir()
	h.env = append(os.Environ(),
		"HYDRA_ACP_HOME="+d.Home, "HOME="+clientHome, "NO_COLOR=1", "FORCE_COLOR=0",
		"PATH="+filepath.Dir(tl.node)+string(os.PathListSeparator)+os.Getenv("PATH"))
	h.watch = startWatcher(filepath.Join(filepath.Dir(tl.cli), "daemon.js"))
	t.Cleanup(h.watch.stop)
	return h
}

// Restart stops and starts troupe daemon on the same port, as a user's
// `troupe daemon` restart; the recording marks where it stopped (before
// what the stop makes the daemon send) and where it answered again.
func (h *H) Restart() {
	h.P.Rec.Add(Record{Kind: KindStop})
	h.D.Stop()
	h.restarting = true
	h.D.Start()
	h.restarting = false
}

// Run runs the CLI with args and stdin and returns what it printed.
type Run struct {
	Stdout, Stderr string
	Code           int
}

func (r Run) String() string {
	return fmt.Sprintf("exit %d, stdout %q, stderr %q", r.Code, short(r.Stdout), short(r.Stderr))
}

func (h *H) CLI(stdin string, args ...string) Run {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, h.node, append([]string{h.cli}, args...)...)
	cmd.Env, cmd.Dir = h.env, h.D.Work
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := Run{Stdout: out.String(), Stderr: errb.String()}
	if ee, isExit := err.(*exec.ExitError); isExit {
		r.Code = ee.ExitCode()
	} else if err != nil {
		r.Code = -1
		r.Stderr += "\n" + err.Error()
	}
	if ctx.Err() != nil {
		r.Stderr += "\n(timed out after 90s)"
	}
	h.t.Logf("$ hydra-acp %s\n%s\n--- stderr\n%s--- exit %d", strings.Join(args, " "), r.Stdout, r.Stderr, r.Code)
	return r
}

// SessionsJSON is `session list --all --json`'s sessions.
func (h *H) SessionsJSON() ([]map[string]any, Run) {
	r := h.CLI("", "session", "list", "--all", "--json")
	var list []map[string]any
	if err := json.Unmarshal([]byte(r.Stdout), &list); err != nil {
		var wrapped struct{ Sessions []map[string]any }
		if json.Unmarshal([]byte(r.Stdout), &wrapped) == nil {
			return wrapped.Sessions, r
		}
		return nil, r
	}
	return list, r
}

// Sent is the ACP messages the daemon sent on every WebSocket, in order.
func (h *H) Sent() []map[string]any {
	var out []map[string]any
	for _, rec := range h.P.Rec.Records() {
		if rec.Kind == KindWS && rec.Dir == Recv && rec.Body != nil {
			var m map[string]any
			if json.Unmarshal(rec.Body, &m) == nil {
				out = append(out, m)
			}
		}
	}
	return out
}

// watcher looks for a Hydra daemon process (dist/daemon.js) while a row
// runs.
type watcher struct {
	bundle string
	mu     sync.Mutex
	seen   []string
	done   chan struct{}
	ended  chan struct{}
}

func startWatcher(bundle string) *watcher {
	w := &watcher{bundle: bundle, done: make(chan struct{}), ended: make(chan struct{})}
	go func() {
		defer close(w.ended)
		for {
			w.scan()
			select {
			case <-w.done:
				return
			case <-time.After(200 * time.Millisecond):
			}
		}
	}()
	return w
}

func (w *watcher) scan() {
	dirs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, f := range dirs {
		b, err := os.ReadFile(f)
		if err != nil || !bytes.Contains(b, []byte("daemon.js")) {
			continue
		}
		cmdline := strings.TrimSpace(string(bytes.ReplaceAll(b, []byte{0}, []byte{' '})))
		if !strings.Contains(cmdline, w.bundle) {
			continue
		}
		seen := filepath.Base(filepath.Dir(f)) + ": " + cmdline
		w.mu.Lock()
		if len(w.seen) < 5 && !contains(w.seen, seen) {
			w.seen = append(w.seen, seen)
		}
		w.mu.Unlock()
	}
}

func (w *watcher) stop() {
	select {
	case <-w.done:
	default:
		close(w.done)
	}
	<-w.ended
}

// hydraDaemon says whether a Hydra daemon started during the row: its
// process, its log in the home, or a discovery record not troupe's.
func (h *H) hydraDaemon() string {
	h.watch.stop()
	h.watch.scan()
	h.watch.mu.Lock()
	seen := h.watch.seen
	h.watch.mu.Unlock()
	if len(seen) > 0 {
		return "a Hydra daemon process started (" + strings.Join(seen, "; ") + ")"
	}
	if _, err := os.Stat(filepath.Join(h.D.Home, "daemon.log")); err == nil {
		return "a Hydra daemon log appeared in the home (daemon.log)"
	}
	b, err := os.ReadFile(filepath.Join(h.D.Home, "daemon.pid"))
	if err == nil {
		var info pidfile.Info
		if json.Unmarshal(b, &info) != nil || (info.PID != h.info.PID && info.PID != 0) {
			return "daemon.pid is no longer troupe's: " + short(string(b))
		}
	}
	return ""
}

// short is s on one line, cut to 160 bytes.
func short(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 160 {
		s = s[:157] + "..."
	}
	return s
}

var idRe = regexp.MustCompile(`s-[a-z2-7]{20,30}`)

// ids are the troupe session ids in s, in order, without repeats.
func ids(s string) []string {
	var out []string
	for _, id := range idRe.FindAllString(s, -1) {
		if !contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

func contains[T comparable](xs []T, x T) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func itoa(n int) string { return strconv.Itoa(n) }

// The watcher sees a process running Hydra's daemon bundle (here a shell
// carrying its path as an argument).
func TestWatcherSeesHydraDaemon(t *testing.T) {
	bundle := filepath.Join(t.TempDir(), "dist", "daemon.js")
	w := startWatcher(bundle)
	cmd := exec.Command("sh", "-c", "sleep 1", "sh", bundle)
	testkit.NoError(t, cmd.Start())
	time.Sleep(500 * time.Millisecond)
	w.stop()
	testkit.NoError(t, cmd.Wait())
	if len(w.seen) != 1 || !strings.Contains(w.seen[0], bundle) {
		t.Fatalf("watcher saw %q, want the process running %s", w.seen, bundle)
	}
}
