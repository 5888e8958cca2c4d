package stdio

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// DefaultMaxLine is the default limit on one input line.
const DefaultMaxLine = 16 << 20

// ErrLineTooLong is returned for a line over the limit; the line is skipped
// and reading can go on.
var ErrLineTooLong = errors.New("line too long")

// Reader reads protocol lines.
type Reader struct {
	r   *bufio.Reader
	max int
	n   int // lines read, for error messages
}

// NewReader reads lines from r of at most max bytes (0: DefaultMaxLine).
func NewReader(r io.Reader, max int) *Reader {
	if max <= 0 {
		max = DefaultMaxLine
	}
	return &Reader{r: bufio.NewReaderSize(r, 64*1024), max: max}
}

// Next returns the next line without its terminator. Splitting is on \n
// only: U+2028 and U+2029 inside JSON strings are not line ends. At the end
// it returns io.EOF; a final line without newline is returned first. A line
// over the limit gives an error wrapping ErrLineTooLong, after which Next
// continues with the following line.
func (rd *Reader) Next() ([]byte, error) {
	var line []byte
	tooLong := false
	for {
		chunk, err := rd.r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > rd.max+2 { // +2 for the \r\n that will be dropped
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		switch {
		case err == nil:
			rd.n++
			if tooLong {
				return nil, fmt.Errorf("line %d: %w (limit %d bytes)", rd.n, ErrLineTooLong, rd.max)
			}
			return trimEOL(line), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if tooLong {
				rd.n++
				return nil, fmt.Errorf("line %d: %w (limit %d bytes)", rd.n, ErrLineTooLong, rd.max)
			}
			if len(line) > 0 {
				rd.n++
				return trimEOL(line), nil
			}
			return nil, io.EOF
		default:
			return nil, fmt.Errorf("read line %d: %w", rd.n+1, err)
		}
	}
}

func trimEOL(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte("\n"))
	return bytes.TrimSuffix(b, []byte("\r"))
}
