package rpc_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

var update = flag.Bool("update", false, "rewrite the golden transcripts in testdata/scenarios")

// The end-to-end suite: each testdata/scenarios/*.txtar holds an LLM
// script (script.yaml), a session driven through stdin (session: see
// runScenario), and the transcript it must produce (want), normalised.
// go test -run TestScenarios -update rewrites the transcripts.
func TestScenarios(t *testing.T) {
	files, err := filepath.Glob("testdata/scenarios/*.txtar")
	testkit.NoError(t, err)
	if len(files) == 0 {
		t.Fatal("no scenarios")
	}
	bin := testkit.BuildTroupe(t)
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".txtar")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ar, err := parseArchive(file)
			testkit.NoError(t, err)
			got := runScenario(t, bin, ar)
			want := section(ar, "want")
			if *update {
				setSection(ar, "want", got)
				testkit.NoError(t, os.WriteFile(file, ar.format(), 0o644))
				return
			}
			if got != want {
				t.Errorf("transcript differs (-want +got):\n%s", diff(want, got))
			}
		})
	}
}

func section(ar *archive, name string) string {
	for _, f := range ar.Files {
		if f.Name == name {
			return string(f.Data)
		}
	}
	return ""
}

func setSection(ar *archive, name, data string) {
	for i, f := range ar.Files {
		if f.Name == name {
			ar.Files[i].Data = []byte(data)
			return
		}
	}
	ar.Files = append(ar.Files, archiveFile{Name: name, Data: []byte(data)})
}

// scenario drives one or more troupe processes on one home.
type scenario struct {
	t        *testing.T
	bin      string
	env      []string
	args     []string
	home     string
	work     string
	srv      *llmserver.Server
	proc     *testkit.Proc
	out      bytes.Buffer
	ids      map[string]string // real id -> placeholder
	byHolder map[string]string // placeholder -> real id
	counts   map[string]int
}

// runScenario plays the session section; sections named work/NAME are
// written to the working directory first, and an args section adds its
// words to the command line. Its directives, one per line:
//
//	> JSON            send a command ($S1, $M2... stand for the ids the
//	                  transcript shows; $WORK for the working directory)
//	wait TEXT         read output until a line containing TEXT
//	close             close stdin, read to the end, check the exit status 0
//	term              SIGTERM, read to the end, check the exit status 143
//	kill              SIGKILL, dropping what was not read yet
//	start             start a new process on the same home
//	sleep DURATION    pause
//	request N TEXT    the Nth chat request to the LLM contains TEXT
//	file PATH TEXT    the file ($WORK-relative) contains TEXT
func runScenario(t *testing.T, bin string, ar *archive) string {
	script, err := llmserver.ParseScript([]byte(section(ar, "script.yaml")))
	testkit.NoError(t, err)
	s := &scenario{t: t, bin: bin, home: t.TempDir(), work: t.TempDir(),
		ids: map[string]string{}, byHolder: map[string]string{}, counts: map[string]int{}}
	for _, f := range ar.Files {
		if name, ok := strings.CutPrefix(f.Name, "work/"); ok {
			testkit.NoError(t, os.WriteFile(filepath.Join(s.work, name), f.Data, 0o644))
		}
	}
	s.srv = llmserver.New(t, script)
	s.env = []string{"OPENAI_BASE_URL=" + s.srv.URL() + "/v1", "OPENAI_API_KEY="}
	s.args = []string{"--mode", "rpc", "--home", s.home, "--provider", "openai", "--model", "tiny", "--cwd", s.work}
	s.args = append(s.args, strings.Fields(section(ar, "args"))...)
	s.start()
	for n, line := range strings.Split(section(ar, "session"), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		verb, arg, _ := strings.Cut(line, " ")
		switch verb {
		case ">":
			s.send(arg)
		case "wait":
			s.wait(arg)
		case "close":
			s.proc.Stdin.Close()
			s.drain()
			testkit.Equal(t, s.proc.Wait(t, 30*time.Second), 0)
		case "term":
			s.proc.Signal(syscall.SIGTERM)
			s.drain()
			testkit.Equal(t, s.proc.Wait(t, 30*time.Second), 143)
		case "kill":
			s.proc.Kill()
			s.proc.Wait(t, 10*time.Second)
			s.out.WriteString("# killed\n")
		case "start":
			s.start()
		case "sleep":
			d, err := time.ParseDuration(arg)
			testkit.NoError(t, err)
			time.Sleep(d)
		case "request":
			num, text, _ := strings.Cut(arg, " ")
			i, err := strconv.Atoi(num)
			testkit.NoError(t, err)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			reqs, err := s.srv.WaitChatRequests(ctx, i)
			cancel()
			if err != nil {
				t.Fatalf("session line %d: waiting for chat request %d: %v", n+1, i, err)
			}
			if body := string(reqs[i-1].Body); !strings.Contains(body, text) {
				t.Errorf("session line %d: chat request %d lacks %q:\n%s", n+1, i, text, body)
			}
		case "file":
			path, text, _ := strings.Cut(arg, " ")
			b, err := os.ReadFile(filepath.Join(s.work, path))
			testkit.NoError(t, err)
			if !strings.Contains(string(b), text) {
				t.Errorf("session line %d: %s lacks %q", n+1, path, text)
			}
		default:
			t.Fatalf("session line %d: unknown directive %q", n+1, line)
		}
	}
	return s.out.String()
}

func (s *scenario) start() {
	s.proc = testkit.Start(s.t, s.bin, s.env, s.args...)
	s.out.WriteString("# start\n")
}

func (s *scenario) send(line string) {
	real := line
	holders := make([]string, 0, len(s.byHolder))
	for h := range s.byHolder {
		holders = append(holders, h)
	}
	// Longest first, so $S10 is not read as $S1 and a 0.
	sort.Slice(holders, func(i, j int) bool { return len(holders[i]) > len(holders[j]) })
	for _, h := range holders {
		real = strings.ReplaceAll(real, "$"+h, s.byHolder[h])
	}
	real = strings.ReplaceAll(real, "$WORK", s.work)
	real = strings.ReplaceAll(real, "$BIG", big)
	if _, err := fmt.Fprintln(s.proc.Stdin, real); err != nil {
		s.t.Fatalf("send %s: %v", line, err)
	}
	s.out.WriteString("> " + line + "\n")
}

func (s *scenario) wait(text string) {
	for {
		line, ok := s.proc.ReadLine(30 * time.Second)
		if !ok {
			s.t.Fatalf("output ended waiting for %q; so far:\n%s\nstderr:\n%s", text, s.out.String(), s.proc.Stderr())
		}
		s.record(line)
		if strings.Contains(line, text) {
			return
		}
	}
}

func (s *scenario) drain() {
	for {
		line, ok := s.proc.ReadLine(30 * time.Second)
		if !ok {
			return
		}
		s.record(line)
	}
}

// big is a message of about 25,000 estimated tokens, more than compaction
// keeps by default.
var big = strings.Repeat("lorem ipsum ", 8500)

var (
	longString = regexp.MustCompile(`"(?:[^"\\]|\\.){300,}?"`)
	idPattern  = regexp.MustCompile(`\b(s-[a-z2-7]{20,30}|rpc-\d+-\d+|(?:msg|compact)-[0-9a-f]+)\b`)
	timestamps = regexp.MustCompile(`"timestamp":\d+`)
	baseURL    = regexp.MustCompile(`http://127\.0\.0\.1:\d+`)
)

// record keeps a line of output with its volatile parts normalised: ids
// become placeholders numbered by first appearance, so that a transcript
// still shows which ids are the same.
func (s *scenario) record(line string) {
	line = idPattern.ReplaceAllStringFunc(line, func(id string) string {
		if h, ok := s.ids[id]; ok {
			return "$" + h
		}
		kind := "M"
		if strings.HasPrefix(id, "s-") {
			kind = "S"
		}
		s.counts[kind]++
		h := fmt.Sprintf("%s%d", kind, s.counts[kind])
		s.ids[id], s.byHolder[h] = h, id
		return "$" + h
	})
	line = longString.ReplaceAllStringFunc(line, func(q string) string {
		return fmt.Sprintf(`"%s…(%d bytes)"`, q[1:40], len(q)-2)
	})
	line = timestamps.ReplaceAllString(line, `"timestamp":0`)
	line = baseURL.ReplaceAllString(line, "$$LLM")
	line = strings.ReplaceAll(line, s.home, "$HOME")
	line = strings.ReplaceAll(line, s.work, "$WORK")
	s.out.WriteString(line + "\n")
}

// diff shows the first differing lines with some context.
func diff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("line %d:\n-%s\n+%s", i+1, wl, gl)
		}
	}
	return ""
}
