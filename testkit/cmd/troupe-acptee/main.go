// Command troupe-acptee runs an ACP agent and records what passes over its
// stdin and stdout, for testkit/agentcompat: named as an agent's command in
// a daemon home's config.json, it stands between `troupe daemon` and the
// real agent program.
//
//	troupe-acptee DIR -- PROGRAM [ARGS...]
//
// Each start writes DIR/start-N.jsonl (N the first number free, from 1):
// one JSON line per newline-delimited message, {"from":"troupe"|"agent",
// "msg":...}, in the order the tee saw them; the agent's stderr goes to
// DIR/start-N.stderr, and "TEEPID AGENTPID" to DIR/start-N.pids once the
// program runs (so a test can check both die with the daemon). A line that is not JSON is kept as {"from", "text"}.
// The program gets this process's environment; it is killed when the tee
// dies (Pdeathsig) and gets the SIGTERM or SIGINT the tee gets. The tee
// exits with the program's exit status.
//
// It reads nothing but the program's own streams and starts nothing but
// the program its arguments name: it is a test tool, configured by hand.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

func main() {
	code, err := run(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "troupe-acptee:", err)
	}
	os.Exit(code)
}

func run(args []string) (int, error) {
	if len(args) < 3 || args[1] != "--" {
		return 2, errors.New("usage: troupe-acptee DIR -- PROGRAM [ARGS...]")
	}
	dir, prog := args[0], args[2:]
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return 1, fmt.Errorf("recording directory: %w", err)
	}
	rec, stderr, err := openStart(dir)
	if err != nil {
		return 1, err
	}
	defer rec.Close()
	defer stderr.Close()

	cmd := exec.Command(prog[0], prog[1:]...)
	cmd.Stderr = stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	in, err := cmd.StdinPipe()
	if err != nil {
		return 1, fmt.Errorf("agent stdin: %w", err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return 1, fmt.Errorf("agent stdout: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return 1, fmt.Errorf("start %s: %w", prog[0], err)
	}
	pids := strings.TrimSuffix(rec.Name(), ".jsonl") + ".pids"
	if err := os.WriteFile(pids, fmt.Appendf(nil, "%d %d\n", os.Getpid(), cmd.Process.Pid), 0o600); err != nil {
		return 1, fmt.Errorf("pids: %w", err)
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	go func() { // ends with the process
		for s := range sigs {
			_ = cmd.Process.Signal(s)
		}
	}()

	w := &recorder{enc: json.NewEncoder(rec)}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // ends when troupe closes our stdin
		defer wg.Done()
		copyLines(os.Stdin, in, w, "troupe")
		_ = in.Close()
	}()
	copyLines(out, os.Stdout, w, "agent")
	err = cmd.Wait()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		if ws, isWS := exit.Sys().(syscall.WaitStatus); isWS && ws.Signaled() {
			return 128 + int(ws.Signal()), nil
		}
		return exit.ExitCode(), nil
	case err != nil:
		return 1, fmt.Errorf("wait: %w", err)
	}
	return 0, nil
}

// openStart creates the first free start-N.jsonl and its stderr file.
func openStart(dir string) (*os.File, *os.File, error) {
	for n := 1; ; n++ {
		base := filepath.Join(dir, fmt.Sprintf("start-%d", n))
		f, err := os.OpenFile(base+".jsonl", os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil {
			return nil, nil, fmt.Errorf("recording: %w", err)
		}
		e, err := os.Create(base + ".stderr")
		if err != nil {
			f.Close()
			return nil, nil, fmt.Errorf("recording stderr: %w", err)
		}
		return f, e, nil
	}
}

// recorder writes one line per message, from both directions in turn.
type recorder struct {
	mu  sync.Mutex
	enc *json.Encoder
}

type line struct {
	From string          `json:"from"`
	Msg  json.RawMessage `json:"msg,omitempty"`
	Text string          `json:"text,omitempty"`
}

func (r *recorder) add(from string, b []byte) {
	l := line{From: from}
	if json.Valid(b) {
		l.Msg = append(json.RawMessage(nil), b...)
	} else {
		l.Text = string(b)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	_ = r.enc.Encode(l)
}

// copyLines forwards src to dst line by line, recording each line before
// it is forwarded (so a reply can never be recorded ahead of its request).
func copyLines(src io.Reader, dst io.Writer, r *recorder, from string) {
	br := bufio.NewReaderSize(src, 1<<20)
	for {
		b, err := br.ReadBytes('\n')
		if len(b) > 0 {
			trimmed := b
			for len(trimmed) > 0 && (trimmed[len(trimmed)-1] == '\n' || trimmed[len(trimmed)-1] == '\r') {
				trimmed = trimmed[:len(trimmed)-1]
			}
			if len(trimmed) > 0 {
				r.add(from, trimmed)
			}
			if _, werr := dst.Write(b); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}
