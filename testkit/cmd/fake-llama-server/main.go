// Command fake-llama-server stands in for llama.cpp's llama-server in tests
// of the process actors that run it: it takes llama-server's flags, binds
// its port at once, answers 503 "Loading model" on every route for
// --fake-load, then serves llama-server's routes with package
// testkit/llmserver (the one fake of llama-server's wire): the script's
// replies, then an echo of the last user message, a word a frame. Like the real
// server it logs to stderr (never stdout), dies by SIGTERM while loading
// (its handlers are installed after the load), exits 0 on SIGTERM after it,
// and exits 1 on a second signal.
//
// Flags of its own, all optional, make it misbehave:
//
//	--fake-load D           load time (default 0)
//	--fake-script FILE      an llmserver script (YAML or JSON): its replies, then echo
//	--fake-token-delay D    pause before each echoed word
//	--fake-crash-after N    die by SIGKILL as completion N+1 begins
//	--fake-hang-after N     stop answering anything once completion N+1 begins
//	--fake-fail-load        exit 1 "exiting due to model loading error" after the load
//	--fake-ignore-term      ignore SIGTERM (only SIGKILL ends it)
//	--fake-abort-on-term    die by SIGABRT on SIGTERM, as the 2025 build does
//
// The model file (-m) must exist, as for the real server, but is not read.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/troupehq/troupe/testkit/llmserver"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stderr))
}

type config struct {
	model, host, alias, apiKey, script string
	port, ctx, parallel                int
	load, tokenDelay                   time.Duration
	crashAfter, hangAfter              int
	failLoad, ignoreTerm, abortOnTerm  bool
}

// parse takes llama-server's flags (the ones troupe passes, and the common
// ones a config's extra arguments may add); an unknown one is an error, as
// it is for the real server.
func parse(args []string, stderr io.Writer) (config, error) {
	c := config{host: "127.0.0.1", port: 8080, ctx: 4096, parallel: 1}
	fs := flag.NewFlagSet("llama-server", flag.ContinueOnError)
	fs.SetOutput(stderr)
	str := func(p *string, names ...string) {
		for _, n := range names {
			fs.StringVar(p, n, *p, "")
		}
	}
	num := func(p *int, names ...string) {
		for _, n := range names {
			fs.IntVar(p, n, *p, "")
		}
	}
	str(&c.model, "m", "model")
	str(&c.host, "host")
	str(&c.alias, "a", "alias")
	str(&c.apiKey, "api-key")
	num(&c.port, "port")
	num(&c.ctx, "c", "ctx-size")
	num(&c.parallel, "np", "parallel")
	var ignored string
	for _, n := range []string{"t", "threads", "ngl", "n-gpu-layers", "gpu-layers", "mmproj", "temp", "top-k",
		"top-p", "min-p", "repeat-penalty", "b", "batch-size", "ub", "ubatch-size", "fit", "fit-target",
		"chat-template", "chat-template-file", "reasoning-format", "sleep-idle-seconds"} {
		fs.StringVar(&ignored, n, "", "")
	}
	var flagsOff bool
	for _, n := range []string{"jinja", "no-jinja", "slots", "no-slots", "metrics", "flash-attn", "fa",
		"cont-batching", "no-mmap", "mlock", "no-webui"} {
		fs.BoolVar(&flagsOff, n, false, "")
	}
	str(&c.script, "fake-script")
	fs.DurationVar(&c.load, "fake-load", 0, "")
	fs.DurationVar(&c.tokenDelay, "fake-token-delay", 0, "")
	num(&c.crashAfter, "fake-crash-after")
	num(&c.hangAfter, "fake-hang-after")
	fs.BoolVar(&c.failLoad, "fake-fail-load", false, "")
	fs.BoolVar(&c.ignoreTerm, "fake-ignore-term", false, "")
	fs.BoolVar(&c.abortOnTerm, "fake-abort-on-term", false, "")
	c.crashAfter, c.hangAfter = -1, -1
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("error: invalid argument: %s", fs.Arg(0))
	}
	return c, nil
}

// logf writes one line in the new build's format: elapsed time, level, "srv".
var began = time.Now()

func logf(w io.Writer, level, format string, args ...any) {
	d := time.Since(began)
	fmt.Fprintf(w, "%d.%02d.%03d.%03d %s srv  %s\n", int(d.Minutes()), int(d.Seconds())%60,
		d.Milliseconds()%1000, d.Microseconds()%1000, level, fmt.Sprintf(format, args...))
}

func run(args []string, stderr io.Writer) int {
	c, err := parse(args, stderr)
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stderr, err)
		}
		return 1
	}
	script := llmserver.Script{}
	if c.script != "" {
		if script, err = llmserver.LoadScript(c.script); err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
	}
	script.Model, script.ContextSize = c.model, c.ctx/max(c.parallel, 1)
	if c.alias != "" {
		script.Model = c.alias
	}
	script.APIKey = c.apiKey
	script.SupportsToolCalls = true // the fake answers scripted tool calls

	hang := make(chan struct{}) // closed to make every request block
	quit := make(chan struct{}) // closed as run returns, releasing hung requests
	defer close(quit)
	var hangOnce sync.Once
	var completions atomic.Int64
	onCompletion := func(n int) {
		if c.crashAfter >= 0 && n > c.crashAfter {
			logf(stderr, "E", "fake: crashing at completion %d", n)
			_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		}
		if c.hangAfter >= 0 && n > c.hangAfter {
			logf(stderr, "W", "fake: hanging at completion %d", n)
			hangOnce.Do(func() { close(hang) })
			<-quit
		}
	}
	// Held until the signal handlers are in: a 200 from /health then
	// promises that SIGTERM is a clean stop.
	srv, err := llmserver.Start(script, llmserver.WithAddr(net.JoinHostPort(c.host, strconv.Itoa(c.port))),
		llmserver.WithHold(), llmserver.WithReplier(echo(c.tokenDelay)),
		llmserver.WithMiddleware(func(h http.Handler) http.Handler {
			return hangable(counting(h, &completions, onCompletion), hang)
		}))
	if err != nil {
		logf(stderr, "E", "llama_server: couldn't bind HTTP server socket, hostname: %s, port: %d", c.host, c.port)
		return 1
	}
	defer srv.Close()
	logf(stderr, "I", "load_model: loading model '%s'", c.model)

	time.Sleep(c.load)
	if _, err := os.Stat(c.model); c.failLoad || c.model == "" || err != nil {
		logf(stderr, "E", "llama_server: exiting due to model loading error")
		return 1
	}
	// The handlers come only now: a SIGTERM during the load kills the
	// process by the signal, as with the real server.
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	logf(stderr, "I", "llama_server: model loaded")
	srv.SetReady()
	logf(stderr, "I", "llama_server: listening on %s", srv.URL())
	return waitSignals(sigs, c, srv, stderr)
}

func waitSignals(sigs <-chan os.Signal, c config, srv *llmserver.Server, stderr io.Writer) int {
	for first := true; ; first = false {
		<-sigs
		switch {
		case !first:
			logf(stderr, "I", "Received second interrupt, terminating immediately.")
			return 1
		case c.ignoreTerm:
			logf(stderr, "W", "fake: ignoring the signal")
		case c.abortOnTerm:
			fmt.Fprintln(stderr, "terminate called without an active exception")
			// A crashing traceback makes the runtime end by SIGABRT.
			debug.SetTraceback("crash")
			panic("abort")
		default:
			logf(stderr, "I", "operator(): operator(): cleaning up before exit...")
			_ = srv.Close() // nothing to report: the process ends
			return 0
		}
	}
}

// hangable blocks every request once hang is closed, like a wedged server
// that still holds its port.
func hangable(h http.Handler, hang <-chan struct{}) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-hang:
			<-r.Context().Done()
			return
		default:
		}
		h.ServeHTTP(w, r)
	})
}

// counting calls onCompletion with n as chat completion n (from 1) begins,
// before the server sees it: it may block (a hang) or end the process (a
// crash).
func counting(h http.Handler, n *atomic.Int64, onCompletion func(int)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && (r.URL.Path == "/v1/chat/completions" || r.URL.Path == "/chat/completions") {
			onCompletion(int(n.Add(1)))
		}
		h.ServeHTTP(w, r)
	})
}

// echo answers with the last user message's text, a word (with its
// leading space) a frame as llama-server's deltas look, after delay each.
func echo(delay time.Duration) func(map[string]any) llmserver.Reply {
	return func(req map[string]any) llmserver.Reply {
		var steps []llmserver.Step
		for _, tok := range words(lastUserText(req)) {
			if delay > 0 {
				steps = append(steps, llmserver.Delay(delay))
			}
			steps = append(steps, llmserver.Text(tok))
		}
		if len(steps) == 0 {
			steps = append(steps, llmserver.Finish("stop"))
		}
		return llmserver.Steps(steps...)
	}
}

// lastUserText is the text of the last user message: its content string,
// or the text parts of its content array.
func lastUserText(req map[string]any) string {
	msgs, _ := req["messages"].([]any)
	for i := len(msgs) - 1; i >= 0; i-- {
		m, _ := msgs[i].(map[string]any)
		if m["role"] != "user" {
			continue
		}
		switch c := m["content"].(type) {
		case string:
			return c
		case []any:
			var b strings.Builder
			for _, p := range c {
				if part, ok := p.(map[string]any); ok {
					t, _ := part["text"].(string)
					b.WriteString(t)
				}
			}
			return b.String()
		}
		return ""
	}
	return ""
}

// words splits text into pieces that keep their leading space (" zes").
func words(text string) []string {
	var out []string
	start := 0
	for i := 1; i < len(text); i++ {
		if text[i] == ' ' && text[i-1] != ' ' {
			out = append(out, text[start:i])
			start = i
		}
	}
	if start < len(text) {
		out = append(out, text[start:])
	}
	return out
}
