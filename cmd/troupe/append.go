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

	"github.com/troupehq/troupe/actors"
	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/transports/stdio"
)

// maxAppendBatch bounds how many stdin lines go to the session per append.
const maxAppendBatch = 256

// ack is one stdout line per input line.
type ack struct {
	Line  int    `json:"line"`
	Seq   int64  `json:"seq,omitempty"`
	Error string `json:"error,omitempty"`
}

// inputLine is one stdin line, or the error that replaced it (too long).
type inputLine struct {
	n    int
	text []byte
	err  error
}

func runAppend(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var common commonFlags
	fs := newFlagSet("append", stderr)
	common.register(fs)
	title := fs.String("title", "", "title of the session if it is created")
	cwd := fs.String("cwd", "", "working directory recorded if the session is created (default: current)")
	maxLine := fs.Int("max-line", stdio.DefaultMaxLine, "largest accepted input line in bytes; a longer line is refused and reading goes on")
	pos, err := parse(fs, args)
	if err != nil {
		return exitCode(err)
	}
	if len(pos) != 1 {
		fmt.Fprintln(stderr, "usage: troupe append SESSION [--title T] [--cwd DIR] [--max-line N] < events.ndjson")
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
	rt, err := actors.Start(actors.Options{Home: common.home, Logger: log, Command: "troupe append"})
	if err != nil {
		fmt.Fprintf(stderr, "troupe append: %v\n", err)
		return 1
	}
	ctx, stop := actors.NotifyShutdown(context.Background(), log)
	defer stop()
	failed, err := appendLines(ctx, rt, pos[0], event.CreatedPayload{Title: *title, Cwd: *cwd}, stdio.NewReader(stdin, *maxLine), stdout)
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
func appendLines(ctx context.Context, rt *actors.Runtime, id string, created event.CreatedPayload, stdin *stdio.Reader, stdout io.Writer) (bool, error) {
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
func ensureSession(ctx context.Context, rt *actors.Runtime, id string, created event.CreatedPayload) error {
	_, err := rt.Sessions.State(ctx, id)
	if !errors.Is(err, sessions.ErrNotFound) {
		return err
	}
	if err := rt.Sessions.Create(ctx, id, created); err != nil && !errors.Is(err, sessions.ErrExists) {
		return err
	}
	return nil
}

// readLines sends every line, a too-long one as its own error, until EOF or
// a read error.
func readLines(rd *stdio.Reader, out chan<- inputLine, errc chan<- error) {
	defer close(out)
	for n := 1; ; n++ {
		text, err := rd.Next()
		switch {
		case err == nil:
			out <- inputLine{n: n, text: text}
		case errors.Is(err, stdio.ErrLineTooLong):
			out <- inputLine{n: n, err: err}
		case errors.Is(err, io.EOF):
			errc <- nil
			return
		default:
			errc <- err
			return
		}
	}
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

// appendBatch appends the valid lines of batch and writes one ack per line,
// in order. Each line is judged alone before the append, since the session
// refuses a whole append for one bad draft: a bad line gets its own error
// and its neighbours still commit.
func appendBatch(ctx context.Context, rt *actors.Runtime, id string, batch []inputLine, enc *json.Encoder) (failed bool) {
	var drafts []event.Draft
	var lineOf []int
	acks := make([]ack, len(batch))
	for i, l := range batch {
		acks[i].Line = l.n
		d, err := draftOf(l)
		if err != nil {
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

// draftOf judges one line as the session would judge it alone. The session
// always exists by now (appendLines opens it first), so session.created,
// which only opens a log, is refused here.
func draftOf(l inputLine) (event.Draft, error) {
	if l.err != nil {
		return event.Draft{}, l.err
	}
	var d event.Draft
	if err := json.Unmarshal(l.text, &d); err != nil {
		return d, fmt.Errorf("invalid JSON: %w", err)
	}
	if err := d.Validate(); err != nil {
		return d, err
	}
	if d.Kind == event.SessionCreated {
		return d, fmt.Errorf("%s only opens a log, and this session is open", d.Kind)
	}
	return d, nil
}
