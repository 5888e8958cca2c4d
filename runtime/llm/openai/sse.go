package openai

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// sseReader splits a text/event-stream body into the data of its events,
// following the WHATWG event-stream rules that matter for chat completions:
// comment lines (":" keep-alives) and fields other than data are ignored, a
// field's single leading space is dropped, several data lines join with
// "\n", a blank line ends the event. Lines may end in "\n" or "\r\n"; a lone
// "\r" line ending is not supported (no server in use sends it).
type sseReader struct {
	r       *bufio.Reader
	maxLine int
	long    []byte // a line longer than r's buffer, reassembled
	data    []byte
	hasData bool
	eof     bool
}

const (
	// sseBufferSize is a stream's read buffer. A chunk's line is a few
	// hundred bytes; a longer one is reassembled in long. Every stream in
	// flight holds one: 64 KB made 10,000 concurrent sessions hold 640 MB
	// of buffers and allocate 64 KB per turn (BenchmarkDaemonScale's heap
	// profile), 4 KB holds 40 MB.
	sseBufferSize     = 4 << 10
	defaultMaxSSELine = 16 << 20
)

var doneMarker = []byte("[DONE]")

// errLineTooLong is returned when a line exceeds the reader's limit: the
// server is misbehaving, and reading on would only use more memory.
var errLineTooLong = errors.New("event-stream line too long")

func newSSEReader(r io.Reader, maxLine int) *sseReader {
	if maxLine <= 0 {
		maxLine = defaultMaxSSELine
	}
	return &sseReader{r: bufio.NewReaderSize(r, sseBufferSize), maxLine: maxLine}
}

// next returns the data of the next event; the slice is valid until the
// following call. It returns io.EOF when the body ends; an event left
// unterminated at the end is dropped, as the spec says, except a bare
// [DONE], which some servers send without the final blank line.
func (s *sseReader) next() ([]byte, error) {
	s.data, s.hasData = s.data[:0], false
	for {
		if s.eof {
			if s.hasData && bytes.Equal(s.data, doneMarker) {
				s.hasData = false
				return s.data, nil
			}
			return nil, io.EOF
		}
		line, err := s.readLine()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				return nil, err
			}
			s.eof = true
			if len(line) == 0 {
				continue
			}
		}
		line = trimEOL(line)
		if len(line) == 0 {
			if s.hasData {
				return s.data, nil
			}
			continue
		}
		if line[0] == ':' {
			continue
		}
		name, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			name, value = line[:i], line[i+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		if string(name) != "data" {
			continue
		}
		if s.hasData {
			s.data = append(s.data, '\n')
		}
		s.data = append(s.data, value...)
		s.hasData = true
	}
}

func (s *sseReader) readLine() ([]byte, error) {
	line, err := s.r.ReadSlice('\n')
	if !errors.Is(err, bufio.ErrBufferFull) {
		return line, err
	}
	s.long = append(s.long[:0], line...)
	for errors.Is(err, bufio.ErrBufferFull) {
		if len(s.long) > s.maxLine {
			return nil, fmt.Errorf("%w: over %d bytes", errLineTooLong, s.maxLine)
		}
		line, err = s.r.ReadSlice('\n')
		s.long = append(s.long, line...)
	}
	return s.long, err
}

func trimEOL(line []byte) []byte {
	if n := len(line); n > 0 && line[n-1] == '\n' {
		line = line[:n-1]
	}
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line
}
