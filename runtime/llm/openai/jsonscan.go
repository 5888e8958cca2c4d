package openai

import (
	"errors"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/troupehq/troupe/runtime/jsontext"
)

// scanner is a minimal JSON reader for the hot path: one streamed frame per
// delta, at up to a million deltas a second, is more than reflection-based
// decoding can keep up with. It reads only what the frame parser asks for
// and skips the rest; it checks enough structure never to loop or panic on
// bad input, but it is not a validator.
//
// Strings come back as slices of the input when they hold no escapes, or of
// scratch otherwise; scratch only grows within one frame, so every slice
// handed out stays valid until reset.
type scanner struct {
	data    []byte
	pos     int
	err     error
	scratch []byte
}

var errSyntax = errors.New("invalid json")

func (s *scanner) reset(data []byte) {
	s.data, s.pos, s.err = data, 0, nil
	s.scratch = s.scratch[:0]
}

func (s *scanner) fail() {
	if s.err == nil {
		s.err = errSyntax
	}
	s.pos = len(s.data)
}

func (s *scanner) ws() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// peek returns the next non-space byte without consuming it, 0 at the end.
func (s *scanner) peek() byte {
	s.ws()
	if s.pos < len(s.data) {
		return s.data[s.pos]
	}
	return 0
}

func (s *scanner) consume(c byte) bool {
	if s.peek() == c {
		s.pos++
		return true
	}
	s.fail()
	return false
}

// enterObject consumes '{'. Keys are then read with nextKey.
func (s *scanner) enterObject() bool { return s.consume('{') }

// nextKey returns the next key of the current object and consumes the ':'
// after it, or reports false after consuming the closing '}'.
func (s *scanner) nextKey(first *bool) ([]byte, bool) {
	c := s.peek()
	if s.err != nil {
		return nil, false
	}
	if c == '}' {
		s.pos++
		return nil, false
	}
	if !*first {
		if c != ',' {
			s.fail()
			return nil, false
		}
		s.pos++
	}
	*first = false
	if s.peek() != '"' {
		s.fail()
		return nil, false
	}
	key, ok := s.key()
	if !ok || !s.consume(':') {
		return nil, false
	}
	return key, true
}

// enterArray consumes '['. Elements are then walked with nextElem.
func (s *scanner) enterArray() bool { return s.consume('[') }

// nextElem reports whether another element follows, consuming the ','
// before it, or consumes the closing ']' and reports false.
func (s *scanner) nextElem(first *bool) bool {
	c := s.peek()
	if s.err != nil {
		return false
	}
	if c == ']' {
		s.pos++
		return false
	}
	if !*first {
		if c != ',' {
			s.fail()
			return false
		}
		s.pos++
	}
	*first = false
	if s.peek() == 0 {
		s.fail()
		return false
	}
	return true
}

// null consumes a JSON null if one is next.
func (s *scanner) null() bool {
	if s.peek() == 'n' && len(s.data)-s.pos >= 4 && string(s.data[s.pos:s.pos+4]) == "null" {
		s.pos += 4
		return true
	}
	return false
}

// str reads a string. Escapes and invalid UTF-8 are decoded the way
// encoding/json does (bad sequences become U+FFFD) so that streamed and
// non-streamed replies read the same.
func (s *scanner) str() ([]byte, bool) {
	raw, escaped, ok := s.rawString()
	if !ok {
		return nil, false
	}
	if !escaped && utf8.Valid(raw) && !hasControl(raw) {
		return raw, true
	}
	return s.decode(raw)
}

// key reads an object key. Keys are only compared with ASCII names, so an
// unescaped key needs no UTF-8 check.
func (s *scanner) key() ([]byte, bool) {
	raw, escaped, ok := s.rawString()
	if !ok || !escaped {
		return raw, ok
	}
	return s.decode(raw)
}

// rawString consumes a string and returns the bytes between its quotes,
// without decoding them: most of a frame's strings are only skipped.
func (s *scanner) rawString() (raw []byte, escaped, ok bool) {
	if s.peek() != '"' {
		s.fail()
		return nil, false, false
	}
	start := s.pos + 1
	data := s.data
	for i := start; i < len(data); i++ {
		switch data[i] {
		case '"':
			s.pos = i + 1
			return data[start:i], escaped, true
		case '\\':
			escaped = true
			i++
		}
	}
	s.fail()
	return nil, false, false
}

func hasControl(b []byte) bool {
	for _, c := range b {
		if c < 0x20 {
			return true
		}
	}
	return false
}

func (s *scanner) decode(raw []byte) ([]byte, bool) {
	start := len(s.scratch)
	b, ok := jsontext.AppendUnescaped(s.scratch, raw)
	if !ok {
		s.fail()
		return nil, false
	}
	s.scratch = b
	return b[start:len(b):len(b)], true
}

// integer reads a number and truncates it to an int; token counts are
// integers, but a server writing 12.0 should not break the stream. Numbers
// out of int range read as 0.
func (s *scanner) integer() (int, bool) {
	tok := s.number()
	if s.err != nil {
		return 0, false
	}
	if n, err := strconv.Atoi(string(tok)); err == nil {
		return n, true
	}
	f, err := strconv.ParseFloat(string(tok), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		s.fail()
		return 0, false
	}
	if f != f || f >= math.MaxInt64 || f <= math.MinInt64 {
		return 0, true
	}
	return int(f), true
}

// number consumes a number token without interpreting it.
func (s *scanner) number() []byte {
	s.ws()
	start := s.pos
	for s.pos < len(s.data) {
		c := s.data[s.pos]
		if (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' {
			s.pos++
			continue
		}
		break
	}
	if s.pos == start {
		s.fail()
	}
	return s.data[start:s.pos]
}

// skip consumes one value of any kind.
func (s *scanner) skip() {
	switch c := s.peek(); c {
	case '"':
		s.rawString()
	case '{', '[':
		s.skipNested()
	case 't', 'f', 'n':
		for s.pos < len(s.data) && s.data[s.pos] >= 'a' && s.data[s.pos] <= 'z' {
			s.pos++
		}
	default:
		if c == '-' || (c >= '0' && c <= '9') {
			s.number()
			return
		}
		s.fail()
	}
}

// skipNested skips an object or array without building anything, tracking
// only depth and strings.
func (s *scanner) skipNested() {
	depth := 0
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				s.pos++
				return
			}
		case '"':
			if _, _, ok := s.rawString(); !ok {
				return
			}
			continue
		}
		s.pos++
	}
	s.fail()
}

// rawValue consumes a value and returns its JSON text.
func (s *scanner) rawValue() []byte {
	s.ws()
	start := s.pos
	s.skip()
	return s.data[start:s.pos]
}
