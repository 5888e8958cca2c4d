package transcript

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

var vars = map[string]string{"BIG": "lorem ipsum"}

// chat TEXT posts one chat request with TEXT as the user's message to the
// script's llmserver.
func cmdChat(ts *testscript.TestScript, neg bool, args []string) {
	body := fmt.Sprintf(`{"model":"tiny","messages":[{"role":"user","content":%q}]}`, args[0])
	resp, err := http.Post(ts.Getenv("LLM")+"/v1/chat/completions", "application/json", strings.NewReader(body))
	ts.Check(err)
	ts.Check(resp.Body.Close())
}

func params(t *testing.T, dir string, update bool) testscript.Params {
	t.Helper()
	p, err := Params{Dir: dir, Update: update, Vars: vars, Cmds: map[string]func(*testscript.TestScript, bool, []string){"chat": cmdChat}}.testscript("")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCommands(t *testing.T) {
	testscript.Run(t, params(t, "testdata", false))
}

// Each script must fail, saying why.
func TestFailures(t *testing.T) {
	tests := []struct{ name, script, want string }{
		{"transcript differs", "start cat\nsend '{\"a\":1}'\nclose\ntranscript\ncmp stdout want\n-- want --\n$ cat\n> {\"a\":2}\n",
			"stdout and want differ"},
		{"not JSON", "start cat\nsend 'not json'\nexpect json\n", "stdout line is not a JSON object"},
		{"output ends", "start sh -c 'echo {}'\nexpect never\n", "output ended"},
		{"no process", "send '{}'\n", "no process runs"},
		{"one process at a time", "start cat\nstart cat\n", "the previous process still runs"},
		{"unquoted line", "start cat\nsend {\"a\": 1}\n", "one argument"},
		{"unknown signal", "start cat\nsignal STOP\n", "usage: signal"},
		{"request lacks", "llmserver llm.yaml\nchat hi\nrequest 1 bye\n-- llm.yaml --\nreplies: [{steps: [{text: x}]}]\n", "lacks \"bye\""},
		{"script exhausted", "llmserver llm.yaml\nchat hi\ntranscript\n-- llm.yaml --\nreplies: []\n", "the LLM server reported: llmserver: script exhausted"},
		{"kit's command", "", "command \"send\" is the kit's"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "s.txtar"), []byte(tt.script), 0o644); err != nil {
				t.Fatal(err)
			}
			p := Params{Dir: dir, Cmds: map[string]func(*testscript.TestScript, bool, []string){"chat": cmdChat}}
			if tt.script == "" {
				p.Cmds["send"] = cmdChat
			}
			sp, err := p.testscript("")
			var log string
			if err != nil {
				log = err.Error()
			} else {
				ft := &fakeT{}
				testscript.RunT(ft, sp)
				if !ft.failed {
					t.Fatalf("the script passed; log:\n%s", ft.log.String())
				}
				log = ft.log.String()
			}
			if !strings.Contains(log, tt.want) {
				t.Errorf("the failure does not say %q:\n%s", tt.want, log)
			}
		})
	}
}

// -update writes what the run produced into the want section.
func TestUpdate(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s.txtar")
	script := "start cat\nsend '{\"a\":1}'\nclose\ntranscript\ncmp stdout want\n\n-- want --\n"
	if err := os.WriteFile(file, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	// t.Run returns once the script's parallel subtest has run.
	t.Run("update", func(t *testing.T) { testscript.Run(t, params(t, dir, true)) })
	got, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if want := script + "$ cat\n> {\"a\":1}\n> EOF\n< {\"a\":1}\nexit 0\n"; string(got) != want {
		t.Errorf("updated script:\n%s\nwant:\n%s", got, want)
	}
}

// fakeT runs testscript's subtests in line and records whether they
// failed, for scripts that must fail.
type fakeT struct {
	mu     sync.Mutex
	log    strings.Builder
	failed bool
}

type failNow struct{}

func (t *fakeT) Skip(args ...any) { t.Log(args...); panic(failNow{}) }
func (t *fakeT) Fatal(args ...any) {
	t.Log(args...)
	t.FailNow()
}
func (t *fakeT) Parallel() {}
func (t *fakeT) Log(args ...any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	fmt.Fprintln(&t.log, args...)
}
func (t *fakeT) FailNow() {
	t.mu.Lock()
	t.failed = true
	t.mu.Unlock()
	panic(failNow{})
}
func (t *fakeT) Verbose() bool { return false }
func (t *fakeT) Run(_ string, f func(testscript.T)) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(failNow); !ok {
				panic(r)
			}
		}
	}()
	f(t)
}
