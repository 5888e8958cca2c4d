package jsonstream_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

var update = flag.Bool("update", false, "rewrite the golden transcripts in testdata")

// env is one test's world: a home, a workspace and a scripted LLM server.
type env struct {
	t         *testing.T
	bin       string
	home      string
	work      string
	srv       *llmserver.Server
	lines     []string // the transcript over every process, normalised
	sessionID string
}

func newEnv(t *testing.T, replies ...llmserver.Reply) *env {
	t.Helper()
	e := &env{t: t, bin: testkit.BuildTroupe(t), home: t.TempDir(), work: t.TempDir()}
	e.srv = llmserver.New(t, llmserver.Script{Model: "tiny", Replies: replies})
	return e
}

// conv is one troupe process driven through stdin and stdout only.
type conv struct {
	e *env
	p *testkit.Proc
}

func (e *env) start(args ...string) *conv {
	e.t.Helper()
	base := []string{"--json-stream", "--home", e.home, "--provider", "openai", "--model", "tiny", "--workspace", e.work}
	p := testkit.Start(e.t, e.bin, []string{"OPENAI_BASE_URL=" + e.srv.URL() + "/v1", "OPENAI_API_KEY="}, append(base, args...)...)
	e.lines = append(e.lines, "$ troupe --json-stream "+strings.Join(args, " "))
	return &conv{e: e, p: p}
}

// send writes one command line.
func (c *conv) send(line string) {
	c.e.t.Helper()
	c.e.lines = append(c.e.lines, "> "+line)
	if _, err := io.WriteString(c.p.Stdin, line+"\n"); err != nil {
		c.e.t.Fatalf("write stdin: %v", err)
	}
}

// expect reads lines until one of type typ (and, when given, whose field
// key has value want) and returns it decoded.
func (c *conv) expect(typ string, match ...string) map[string]any {
	c.e.t.Helper()
	for {
		line, ok := c.p.ReadLine(60 * time.Second)
		if !ok {
			c.e.t.Fatalf("no %s event; transcript so far:\n%s\nstderr:\n%s", typ, strings.Join(c.e.lines, "\n"), c.p.Stderr())
		}
		m := c.record(line)
		if m["type"] == typ && (len(match) < 2 || fmt.Sprint(m[match[0]]) == match[1]) {
			return m
		}
	}
}

func (c *conv) record(line string) map[string]any {
	c.e.t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		c.e.t.Fatalf("stdout line is not a JSON object: %q", line)
	}
	if m["type"] == "ready" && c.e.sessionID == "" {
		c.e.sessionID, _ = m["session_id"].(string)
	}
	c.e.lines = append(c.e.lines, "< "+c.e.normalise(line))
	return m
}

// end closes stdin, reads what is left and returns the exit code.
func (c *conv) end() int {
	c.e.t.Helper()
	c.p.Stdin.Close()
	c.e.lines = append(c.e.lines, "> EOF")
	return c.drain()
}

func (c *conv) drain() int {
	c.e.t.Helper()
	for line := range c.p.Lines() {
		c.record(line)
	}
	code := c.p.Wait(c.e.t, 60*time.Second)
	c.e.lines = append(c.e.lines, fmt.Sprintf("exit %d", code))
	return code
}

// normalise replaces what changes between runs.
func (e *env) normalise(line string) string {
	r := strings.NewReplacer(e.work, "$WORK", e.home, "$HOME", e.srv.URL(), "$LLM")
	line = r.Replace(line)
	if e.sessionID != "" {
		line = strings.ReplaceAll(line, e.sessionID, "$SESSION")
	}
	return line
}

// golden compares the transcript with testdata/NAME.golden (-update
// rewrites it).
func (e *env) golden(name string) {
	e.t.Helper()
	got := strings.Join(e.lines, "\n") + "\n"
	path := filepath.Join("testdata", name+".golden")
	if *update {
		testkit.NoError(e.t, os.WriteFile(path, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		e.t.Fatalf("%v (run with -update to create it)\ngot:\n%s", err, got)
	}
	if string(want) != got {
		e.t.Fatalf("transcript differs from %s (run with -update after an intended change)\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

func args(kv map[string]any) string {
	b, _ := json.Marshal(kv)
	return string(b)
}
