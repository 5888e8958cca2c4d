package tools

import (
	"bufio"
	"unicode/utf8"
)

// readLine returns the next line without its newline, keeping at most keep
// bytes of it so a multi-gigabyte single-line file cannot exhaust memory;
// long reports whether bytes were dropped. At the end it returns io.EOF,
// possibly together with a final unterminated line (ok is then true).
func readLine(r *bufio.Reader, keep int) (line []byte, long, ok bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if len(chunk) > 0 {
			ok = true
		}
		if n := len(chunk); n > 0 && chunk[n-1] == '\n' {
			chunk = chunk[:n-1]
		}
		room := keep - len(line)
		if len(chunk) > room {
			chunk = chunk[:max(room, 0)]
			long = true
		}
		line = append(line, chunk...)
		if err == bufio.ErrBufferFull {
			continue
		}
		return line, long, ok, err
	}
}

// runeFloor returns the largest n' <= n that does not split a UTF-8 rune of b.
func runeFloor(b []byte, n int) int {
	if n >= len(b) {
		return len(b)
	}
	for n > 0 && !utf8.RuneStart(b[n]) {
		n--
	}
	return n
}
