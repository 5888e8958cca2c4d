// Command troupe-llmserver serves an llmserver script file over HTTP, for
// tests that run the fake LLM as a separate process. The first line it
// writes to stdout is the server's base URL (e.g. http://127.0.0.1:41613);
// nothing else goes to stdout. Logs go to stderr. It serves until SIGINT or
// SIGTERM, then closes and exits 0.
//
// Usage:
//
//	troupe-llmserver [-addr 127.0.0.1:0] [-requests out.jsonl] [-v] script.yaml
//
// With -requests, every request is appended to the file as one JSON line
// once answered: {"seq","method","path","query","header","body","reply","outcome"}
// where body is the request's JSON when it is JSON, else a string.
// See package github.com/troupehq/troupe/testkit/llmserver for the script
// format.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/lmittmann/tint"

	"github.com/troupehq/troupe/testkit/llmserver"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(2)
		}
		fmt.Fprintln(os.Stderr, "troupe-llmserver:", err)
		os.Exit(1)
	}
}

// run serves until ctx ends. It is main without the process, for tests.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("troupe-llmserver", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:0", "listen address; port 0 picks a free one")
	requests := fs.String("requests", "", "append each request to this file as a JSON line")
	verbose := fs.Bool("v", false, "log every request")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: troupe-llmserver [flags] script.yaml|script.json")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return errors.New("want exactly one script file")
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	log := slog.New(tint.NewHandler(stderr, &tint.Options{Level: level, NoColor: !isTerminal(stderr)}))

	script, err := llmserver.LoadScript(fs.Arg(0))
	if err != nil {
		return err
	}
	opts := []llmserver.Option{llmserver.WithAddr(*addr), llmserver.WithLogger(log)}
	if *requests != "" {
		f, err := os.OpenFile(*requests, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return fmt.Errorf("open requests file: %w", err)
		}
		defer f.Close()
		opts = append(opts, llmserver.OnRequest(requestWriter(f, log)))
	}
	srv, err := llmserver.Start(script, opts...)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintln(stdout, srv.URL()); err != nil {
		srv.Close()
		return fmt.Errorf("print url: %w", err)
	}
	log.Info("serving", "url", srv.URL(), "script", fs.Arg(0), "replies", len(script.Replies))
	<-ctx.Done()
	if err := srv.Close(); err != nil {
		return fmt.Errorf("close: %w", err)
	}
	return nil
}

type requestLine struct {
	Seq     int             `json:"seq"`
	Method  string          `json:"method"`
	Path    string          `json:"path"`
	Query   string          `json:"query,omitempty"`
	Header  http.Header     `json:"header"`
	Body    json.RawMessage `json:"body,omitempty"`
	Reply   int             `json:"reply"`
	Outcome string          `json:"outcome"`
}

func requestWriter(w io.Writer, log *slog.Logger) func(llmserver.Request) {
	var mu sync.Mutex
	return func(r llmserver.Request) {
		line := requestLine{
			Seq: r.Seq, Method: r.Method, Path: r.Path, Query: r.RawQuery,
			Header: r.Header, Reply: r.Reply, Outcome: string(r.Outcome),
		}
		switch {
		case len(r.Body) == 0:
		case json.Valid(r.Body):
			line.Body = r.Body
		default:
			line.Body, _ = json.Marshal(string(r.Body)) // a string always marshals
		}
		b, err := json.Marshal(line)
		if err != nil {
			log.Warn("encode request", "seq", r.Seq, "err", err)
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if _, err := w.Write(append(b, '\n')); err != nil {
			log.Warn("write request", "seq", r.Seq, "err", err)
		}
	}
}

// isTerminal keeps colour escapes out of logs that a test captures.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
