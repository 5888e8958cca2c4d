package acprec

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
)

// Mismatches is the file in a replay's state directory where each
// difference is written, one line each.
const Mismatches = "mismatches.txt"

// Replay plays one recorded start of an agent over in (the daemon's
// messages) and out (the agent's). It claims the next start-N in state
// (so the daemon's second start of the agent plays start-2), records what
// it plays and reads there in the tee's format, and walks the recording:
// an agent line is written to out with toRun's paths; a troupe line is the
// next message read from in, compared (after fromRun) with the recorded
// one as JSON values. Each difference, a message missing when in closes,
// and each message past the recording's end, is appended to
// state/mismatches.txt. It returns when in closes.
func Replay(recDir, state string, fromRun, toRun Normaliser, in io.Reader, out io.Writer) error {
	self, name, err := claimStart(state)
	if err != nil {
		return err
	}
	defer self.Close()
	rec, err := readRecording(filepath.Join(recDir, name+".jsonl"))
	if err != nil {
		return err
	}
	p := &player{name: name, state: state, self: &recorder{enc: json.NewEncoder(self)}, in: bufio.NewReaderSize(in, 1<<20), out: out}
	for i, l := range rec.Lines {
		switch l.From {
		case "agent":
			b := toRun.Bytes(l.Msg)
			p.self.add("agent", b)
			if _, err := out.Write(append(b, '\n')); err != nil {
				return fmt.Errorf("write to the daemon: %w", err)
			}
		case "troupe":
			got, ok := p.next()
			if !ok {
				p.mismatch("line %d: the daemon closed the agent's stdin; recorded next: %s", i+1, l.Msg)
				return nil
			}
			if !sameJSON(fromRun.Bytes(got), l.Msg) {
				p.mismatch("line %d: the daemon sent %s; recorded: %s", i+1, fromRun.Bytes(got), l.Msg)
			}
		}
	}
	for {
		got, ok := p.next()
		if !ok {
			return nil
		}
		p.mismatch("past the recording's end: the daemon sent %s", fromRun.Bytes(got))
	}
}

type player struct {
	name, state string
	self        *recorder
	in          *bufio.Reader
	out         io.Writer
}

// next reads the daemon's next non-empty line, recording it.
func (p *player) next() ([]byte, bool) {
	for {
		b, err := p.in.ReadBytes('\n')
		b = trimEOL(b)
		if len(b) > 0 {
			p.self.add("troupe", b)
			return b, true
		}
		if err != nil {
			return nil, false
		}
	}
}

func (p *player) mismatch(format string, a ...any) {
	f, err := os.OpenFile(filepath.Join(p.state, Mismatches), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		fmt.Fprintln(os.Stderr, "acprec: mismatches:", err)
		return
	}
	defer f.Close()
	fmt.Fprintf(f, "%s %s\n", p.name, fmt.Sprintf(format, a...))
}

func sameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return string(a) == string(b)
	}
	return reflect.DeepEqual(x, y)
}

func trimEOL(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

// claimStart creates the first free state/start-N.jsonl.
func claimStart(state string) (*os.File, string, error) {
	if err := os.MkdirAll(state, 0o700); err != nil {
		return nil, "", fmt.Errorf("replay state: %w", err)
	}
	for n := 1; ; n++ {
		name := fmt.Sprintf("start-%d", n)
		f, err := os.OpenFile(filepath.Join(state, name+".jsonl"), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil {
			return nil, "", fmt.Errorf("replay state: %w", err)
		}
		return f, name, nil
	}
}

// recorder writes Lines; Replay's one goroutine is its only user.
type recorder struct {
	enc *json.Encoder
}

func (r *recorder) add(from string, b []byte) {
	l := Line{From: from}
	if json.Valid(b) {
		l.Msg = append(json.RawMessage(nil), b...)
	} else {
		l.Text = string(b)
	}
	_ = r.enc.Encode(l)
}
