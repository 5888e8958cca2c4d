package transcript

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/troupehq/troupe/testkit/llmserver"
	"github.com/troupehq/troupe/testkit/subprocess"
)

// stateKey keys a script's state in testscript's Values.
type stateKey struct{}

// script is one script's state: the scripted LLM server, the process
// being driven, every process started (to stop at the end) and the
// transcript so far.
type script struct {
	srv      *llmserver.Server
	warnings *warnings
	proc     *subprocess.Proc
	running  bool // proc has not been seen to exit
	procs    []*subprocess.Proc
	out      strings.Builder
	norm     *Normaliser
	vars     map[string]string // Params.Vars
}

func newScript() *script { return &script{norm: NewNormaliser()} }

func state(ts *testscript.TestScript) *script {
	s, ok := ts.Value(stateKey{}).(*script)
	if !ok {
		ts.Fatalf("transcript: no state; run the script with transcript.Run or call transcript.Setup")
	}
	return s
}

// stop ends what the script left running; testscript calls it before it
// removes $WORK.
func (s *script) stop() {
	for _, p := range s.procs {
		p.Stop()
	}
	if s.srv != nil {
		_ = s.srv.Close()
	}
}

// lookup is what $NAME means in a line to send or expect: a Params.Vars
// entry, else the script's variable.
func (s *script) lookup(ts *testscript.TestScript) func(string) string {
	return func(name string) string {
		if v, ok := s.vars[name]; ok {
			return v
		}
		return ts.Getenv(name)
	}
}

func (s *script) write(line string) {
	s.out.WriteString(line)
	s.out.WriteByte('\n')
}

// received records a line the process wrote. Every stdio protocol troupe
// speaks is one JSON object per line, so anything else fails here,
// whatever the transcript says.
func (s *script) received(ts *testscript.TestScript, line string) {
	if !strings.HasPrefix(line, "{") || !json.Valid([]byte(line)) {
		ts.Fatalf("stdout line is not a JSON object: %q\ntranscript so far:\n%s", line, s.out.String())
	}
	s.write("< " + s.norm.Line(line))
}

// warnings collects what the LLM server logs at warn level: a script
// that ran out of replies, a server that stopped serving.
type warnings struct {
	mu   sync.Mutex
	msgs []string
}

func (w *warnings) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }

func (w *warnings) Handle(_ context.Context, r slog.Record) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.msgs = append(w.msgs, r.Message)
	return nil
}

func (w *warnings) WithAttrs([]slog.Attr) slog.Handler { return w }
func (w *warnings) WithGroup(string) slog.Handler      { return w }

func (w *warnings) list() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.msgs...)
}
