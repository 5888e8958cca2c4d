package process

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/troupehq/troupe/runtime/proc"
)

// ends are troupe's ends of the program's standard streams.
type ends struct {
	stdin  *os.File // write end, or nil
	stdout *os.File // read end
	stderr *os.File // read end
}

// spawn starts spec's program on fresh pipes. Every stream is an *os.File,
// so exec starts no copying goroutines and Wait returns as soon as the
// program exits.
func spawn(spec Spec) (_ *proc.Cmd, ours ends, err error) {
	cmd := proc.Command(spec.Path, spec.Args...)
	cmd.Dir, cmd.Env = spec.Dir, spec.Env
	if spec.Outlive {
		return spawnOutliving(cmd, spec)
	}
	var ps pipes
	defer func() {
		ps.closeTheirs() // the program has its own copies, or failed to start
		if err != nil {
			ps.closeOurs()
		}
	}()
	if spec.Stdin {
		if cmd.Stdin, ours.stdin, err = ps.toChild(); err != nil {
			return nil, ends{}, err
		}
	}
	if ours.stdout, cmd.Stdout, err = ps.fromChild(); err != nil {
		return nil, ends{}, err
	}
	if ours.stderr, cmd.Stderr, err = ps.fromChild(); err != nil {
		return nil, ends{}, err
	}
	if err := cmd.Start(); err != nil {
		return nil, ends{}, err
	}
	return cmd, ours, nil
}

// spawnOutliving starts a program that may outlive troupe, its output
// going to spec.LogFile.
func spawnOutliving(cmd *proc.Cmd, spec Spec) (*proc.Cmd, ends, error) {
	if spec.Stdin {
		return nil, ends{}, errors.New("an outliving program cannot read stdin from troupe")
	}
	path := cmp.Or(spec.LogFile, os.DevNull)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, ends{}, fmt.Errorf("open the program's log: %w", err)
	}
	defer f.Close() // the program has its own copy, or failed to start
	cmd.Stdout, cmd.Stderr, cmd.Outlive = f, f, true
	if err := cmd.Start(); err != nil {
		return nil, ends{}, err
	}
	return cmd, ends{}, nil
}

// pipes tracks the ends of the pipes spawn made, the program's and troupe's.
type pipes struct{ theirs, ours []*os.File }

// toChild returns a pipe's read end for the program and its write end.
func (p *pipes) toChild() (*os.File, *os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, fmt.Errorf("pipe: %w", err)
	}
	p.theirs, p.ours = append(p.theirs, r), append(p.ours, w)
	return r, w, nil
}

// fromChild returns a pipe's read end and its write end for the program.
func (p *pipes) fromChild() (*os.File, *os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, fmt.Errorf("pipe: %w", err)
	}
	p.theirs, p.ours = append(p.theirs, w), append(p.ours, r)
	return r, w, nil
}

func (p *pipes) closeTheirs() { closeFiles(p.theirs) }
func (p *pipes) closeOurs()   { closeFiles(p.ours) }

func closeFiles(fs []*os.File) {
	for _, f := range fs {
		_ = f.Close()
	}
}

// outputs are the goroutines draining the program's output pipes.
type outputs struct {
	files []*os.File
	runs  []func()
	wg    sync.WaitGroup
}

func (o *outputs) add(f *os.File, run func()) {
	o.files = append(o.files, f)
	o.runs = append(o.runs, run)
}

func (o *outputs) start() {
	for _, run := range o.runs {
		o.wg.Go(run)
	}
}

// close makes every reader return: a read on a closed file fails at once.
func (o *outputs) close() { closeFiles(o.files) }

// readLines sends each line of r to the owner until r ends.
func readLines(r *os.File, stream Stream, tell func(any)) {
	defer r.Close()
	br := bufio.NewReaderSize(r, MaxLine)
	for {
		line, err := br.ReadSlice('\n')
		if err == nil {
			line = line[:len(line)-1]
			if n := len(line); n > 0 && line[n-1] == '\r' {
				line = line[:n-1]
			}
		}
		if err == nil || len(line) > 0 {
			tell(&Line{Stream: stream, Text: string(line)})
		}
		if err != nil && err != bufio.ErrBufferFull {
			return
		}
	}
}

// copyTo writes r to w until r ends. A failing w does not stop the copy:
// the program would block once the pipe filled.
func copyTo(w io.Writer, r *os.File) {
	defer r.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			_, _ = w.Write(buf[:n])
		}
		if err != nil {
			return
		}
	}
}
