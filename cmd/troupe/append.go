package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/troupehq/troupe/actors/session"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/runtime"
)

// maxAppendBatch bounds how many stdin lines go to the session per append.
const maxAppendBatch = 256

// ack is one stdout line per input line.
type ack struct {
	Line  int    `json:"line"`
	Seq   int64  `json:"seq,omitempty"`
	Error string `json:"error,omitempty"`
}

type inputLine struct {
	n    int
	text []byte
}

func runAppend(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var common commonFlags
	fs := newFlagSet("append", stderr)
	common.register(fs)
	title := fs.String("title", "", "title of the session if it is created")
	cwd := fs.String("cwd", "", "working directory recorded if the session is created (default: current)")
	pos, err := parse(fs, args)
	if err != nil {
		return exitCode(err)
	}
	if len(pos) != 1 {
		fmt.Fprintln(stderr, "usage: troupe append SESSION [--title T] [--cwd DIR] < events.ndjson")
		return 2
	}
	log, err := common.logger()
	if err != nil {
		fmt.Fprintf(stderr, "troupe append: %v\n", err)
		return 2
	}
	if *cwd == "" {
		*cwd, _ = os.Getwd()
	}
	rt, err := runtime.Boot(runtime.Options{Home: common.home, Logger: log, Command: "troupe append"})
	if err != nil {
		fmt.Fprintf(stderr, "troupe append: %v\n", err)
		return 1
	}
	ctx, stop := runtime.NotifyShutdown(context.Background(), log)
	defer stop()
	failed, err := appendLines(ctx, rt, pos[0], event.CreatedPayload{Title: *title, Cwd: *cwd}, stdin, stdout)
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err = errors.Join(err, rt.Shutdown(shutdownCtx))
	if err != nil {
		fmt.Fprintf(stderr, "troupe append: %v\n", err)
		return 1
	}
	if failed {
		return 1
	}
	return 0
}

// appendLines appends each stdin line as an event, in batches of whatever
// has arrived, and acknowledges each line after its batch committed. It
// returns whether any line was refused.
func appendLines(ctx context.Context, rt *runtime.Runtime, id string, created event.CreatedPayload, stdin io.Reader, stdout io.Writer) (bool, error) {
	if err := ensureSession(ctx, rt, id, created); err != nil {
		return false, err
	}
	lines := make(chan inputLine, maxAppendBatch)
	readErr := make(chan error, 1)
	go readLines(stdin, lines, readErr) // ends at EOF; at a signal the process exits after shutdown
	out := bufio.NewWriter(stdout)
	enc := json.NewEncoder(out)
	failed := false
	for {
		batch, open := nextBatch(ctx, lines)
		if len(batch) > 0 {
			if appendBatch(ctx, rt, id, batch, enc) {
				failed = true
			}
			if err := out.Flush(); err != nil {
				return failed, fmt.Errorf("write acks: %w", err)
			}
		}
		if !open {
			return failed, <-readErr
		}
		if ctx.Err() != nil {
			return failed, nil
		}
	}
}

// ensureSession wakes the session before any line is read, which takes
// its lease: a second process on the session fails here, at once.
func ensureSession(ctx context.Context, rt *runtime.Runtime, id string, created event.CreatedPayload) error {
	_, err := rt.Sessions.State(ctx, id)
	if !errors.Is(err, session.ErrNotFound) {
		return err
	}
	if err := rt.Sessions.Create(ctx, id, created); err != nil && !errors.Is(err, session.ErrExists) {
		return err
	}
	return nil
}

func readLines(r io.Reader, out chan<- inputLine, errc chan<- error) {
	defer close(out)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	n := 0
	for sc.Scan() {
		n++
		out <- inputLine{n: n, text: append([]byte(nil), sc.Bytes()...)}
	}
	errc <- sc.Err()
}

// nextBatch waits for one line, then takes whatever else is already there.
func nextBatch(ctx context.Context, lines <-chan inputLine) ([]inputLine, bool) {
	var batch []inputLine
	select {
	case l, ok := <-lines:
		if !ok {
			return nil, false
		}
		batch = append(batch, l)
	case <-ctx.Done():
		return nil, true
	}
	for len(batch) < maxAppendBatch {
		select {
		case l, ok := <-lines:
			if !ok {
				return batch, false
			}
			batch = append(batch, l)
		default:
			return batch, true
		}
	}
	return batch, true
}

// appendBatch appends the valid lines of batch and writes one ack per line.
func appendBatch(ctx context.Context, rt *runtime.Runtime, id string, batch []inputLine, enc *json.Encoder) (failed bool) {
	var drafts []event.Draft
	var lineOf []int
	acks := make([]ack, len(batch))
	for i, l := range batch {
		acks[i].Line = l.n
		var d event.Draft
		if err := json.Unmarshal(l.text, &d); err != nil {
			acks[i].Error = fmt.Sprintf("invalid JSON: %v", err)
			continue
		}
		if err := d.Validate(); err != nil {
			acks[i].Error = err.Error()
			continue
		}
		drafts = append(drafts, d)
		lineOf = append(lineOf, i)
	}
	if len(drafts) > 0 {
		first, _, err := rt.Sessions.Append(ctx, id, drafts...)
		for k, i := range lineOf {
			if err != nil {
				acks[i].Error = err.Error()
				continue
			}
			acks[i].Seq = first + int64(k)
		}
	}
	for _, a := range acks {
		failed = failed || a.Error != ""
		_ = enc.Encode(a)
	}
	return failed
}
