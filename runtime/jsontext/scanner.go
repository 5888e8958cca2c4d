package jsontext

import (
	"errors"
	"math"
	"strconv"
	"unicode/utf8"
)

// Scanner is troupe's one hand-written JSON reader, for the hot paths
// where reflection-based decoding costs too much: a streamed model frame
// per delta (runtime/llm/openai, up to a million a second), an external
// ACP agent's text chunk (actors/sessions/internal/upstream); its
// primitives SkipSpace and ScanString also serve transports/projection's
// delta reader. It reads only what its caller asks for and skips the
// rest; it checks enough structure never to loop or panic on bad input,
// but it is not a validator: a caller that must refuse what encoding/json
// refuses checks the tokens it takes (and falls back to encoding/json on
// anything else).
//
// Strings come back as slices of the input when they hold no escapes, or of
// scratch otherwise; scratch only grows within one input, so every slice
// handed out stays valid until Reset. The zero Scanner is ready for Reset.
type Scanner struct {
	data    []byte
	pos     int
	err     error
	scratch []byte
}

var errSyntax = errors.New("invalid json")

// Err is the first error met, nil while the input reads well.
func (s *Scanner) Err() error { return s.err }

// End checks that only space follows the value read and returns Err. (A
// NUL byte is not the end: Peek's 0 is ambiguous, so End looks at the
// position.)
func (s *Scanner) End() error {
	s.ws()
	if s.err == nil && s.pos < len(s.data) {
		s.Fail()
	}
	return s.err
}

// Reset starts reading data, dropping the previous input's strings.
func (s *Scanner) Reset(data []byte) {
	s.data, s.pos, s.err = data, 0, nil
	s.scratch = s.scratch[:0]
}

// Fail marks the input invalid and stops reading it.
func (s *Scanner) Fail() {
	if s.err == nil {
		s.err = errSyntax
	}
	s.pos = len(s.data)
}

func (s *Scanner) ws() {
	// Compact JSON has no space between tokens: leave at once.
	if s.pos < len(s.data) && s.data[s.pos] > ' ' {
		return
	}
	s.pos = SkipSpace(s.data, s.pos)
}

// Peek returns the next non-space byte without consuming it, 0 at the end.
func (s *Scanner) Peek() byte {
	s.ws()
	if s.pos < len(s.data) {
		return s.data[s.pos]
	}
	return 0
}

func (s *Scanner) consume(c byte) bool {
	if s.Peek() == c {
		s.pos++
		return true
	}
	s.Fail()
	return false
}

// EnterObject consumes '{'. Keys are then read with NextKey.
func (s *Scanner) EnterObject() bool { return s.consume('{') }

// NextKey returns the next key of the current object and consumes the ':'
// after it, or reports false after consuming the closing '}'.
func (s *Scanner) NextKey(first *bool) ([]byte, bool) {
	c := s.Peek()
	if s.err != nil {
		return nil, false
	}
	if c == '}' {
		s.pos++
		return nil, false
	}
	if !*first {
		if c != ',' {
			s.Fail()
			return nil, false
		}
		s.pos++
		c = s.Peek()
	}
	*first = false
	if c != '"' {
		s.Fail()
		return nil, false
	}
	key, ok := s.key()
	if !ok {
		return nil, false
	}
	// The colon, read here rather than through consume: this is the
	// scanner's most frequent step.
	s.ws()
	if s.pos >= len(s.data) || s.data[s.pos] != ':' {
		s.Fail()
		return nil, false
	}
	s.pos++
	return key, true
}

// EnterArray consumes '['. Elements are then walked with NextElem.
func (s *Scanner) EnterArray() bool { return s.consume('[') }

// NextElem reports whether another element follows, consuming the ','
// before it, or consumes the closing ']' and reports false.
func (s *Scanner) NextElem(first *bool) bool {
	c := s.Peek()
	if s.err != nil {
		return false
	}
	if c == ']' {
		s.pos++
		return false
	}
	if !*first {
		if c != ',' {
			s.Fail()
			return false
		}
		s.pos++
	}
	*first = false
	if s.Peek() == 0 {
		s.Fail()
		return false
	}
	return true
}

// Null consumes a JSON null if one is next.
func (s *Scanner) Null() bool {
	if s.Peek() == 'n' && len(s.data)-s.pos >= 4 && string(s.data[s.pos:s.pos+4]) == "null" {
		s.pos += 4
		return true
	}
	return false
}

// Str reads a string. Escapes and invalid UTF-8 are decoded the way
// encoding/json does (bad sequences become U+FFFD) so that streamed and
// non-streamed replies read the same.
func (s *Scanner) Str() ([]byte, bool) {
	if s.Peek() != '"' {
		s.Fail()
		return nil, false
	}
	raw, escaped, plain, ok := s.scanString()
	switch {
	case !ok:
		return nil, false
	case escaped:
		return s.decode(raw)
	case plain || (utf8.Valid(raw) && !hasControl(raw)):
		return raw, true
	}
	return s.decode(raw)
}

// key reads an object key, its opening quote next. Keys are only compared
// with ASCII names, so an unescaped key needs no UTF-8 check.
func (s *Scanner) key() ([]byte, bool) {
	raw, escaped, _, ok := s.scanString()
	if !ok || !escaped {
		return raw, ok
	}
	return s.decode(raw)
}

// RawString consumes a string and returns the bytes between its quotes,
// without decoding them: most of a frame's strings are only skipped.
func (s *Scanner) RawString() (raw []byte, escaped, ok bool) {
	if s.Peek() != '"' {
		s.Fail()
		return nil, false, false
	}
	raw, escaped, _, ok = s.scanString()
	return raw, escaped, ok
}

// scanString consumes the string whose opening quote is at the position.
func (s *Scanner) scanString() (raw []byte, escaped, plain, ok bool) {
	raw, escaped, plain, next, ok := ScanString(s.data, s.pos)
	if !ok {
		s.Fail()
		return nil, false, false, false
	}
	s.pos = next
	return raw, escaped, plain, true
}

// SkipSpace returns the index of the first byte at or after i in b that
// is not JSON whitespace: the Scanner's, and a hand-written reader's of
// one known shape (transports/projection's message.delta).
func SkipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// ScanString reads the JSON string whose opening quote is at b[i], in one
// pass: the bytes between its quotes, whether they hold an escape,
// whether they are printable ASCII only (plain: no decoding and no UTF-8
// check needed when unescaped, the common case), and the index after the
// closing quote. ok is false (and the rest meaningless) when b[i] is not a
// quote or the string does not close. It is the Scanner's string reader,
// exported for a hand-written reader of one known shape; it is kept within
// the compiler's inlining budget, which that reader's speed depends on.
func ScanString(b []byte, i int) (raw []byte, escaped, plain bool, next int, ok bool) {
	if i >= len(b) || b[i] != '"' {
		return
	}
	plain = true
	for j := i + 1; j < len(b); j++ {
		if c := b[j]; c == '"' {
			return b[i+1 : j], escaped, plain, j + 1, true
		} else if c == '\\' {
			escaped = true
			j++
		} else if c-0x20 >= 0x60 { // below 0x20 or above 0x7f
			plain = false
		}
	}
	return nil, false, false, 0, false
}

func hasControl(b []byte) bool {
	for _, c := range b {
		if c < 0x20 {
			return true
		}
	}
	return false
}

func (s *Scanner) decode(raw []byte) ([]byte, bool) {
	start := len(s.scratch)
	b, ok := AppendUnescaped(s.scratch, raw)
	if !ok {
		s.Fail()
		return nil, false
	}
	s.scratch = b
	return b[start:len(b):len(b)], true
}

// Integer reads a number and truncates it to an int; token counts are
// integers, but a server writing 12.0 should not break the stream. Numbers
// out of int range read as 0.
func (s *Scanner) Integer() (int, bool) {
	tok := s.Number()
	if s.err != nil {
		return 0, false
	}
	if n, err := strconv.Atoi(string(tok)); err == nil {
		return n, true
	}
	f, err := strconv.ParseFloat(string(tok), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		s.Fail()
		return 0, false
	}
	if f != f || f >= math.MaxInt64 || f <= math.MinInt64 {
		return 0, true
	}
	return int(f), true
}

// Number consumes a number token without interpreting it.
func (s *Scanner) Number() []byte {
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
		s.Fail()
	}
	return s.data[start:s.pos]
}

// Skip consumes one value of any kind.
func (s *Scanner) Skip() {
	switch c := s.Peek(); c {
	case '"':
		s.RawString()
	case '{', '[':
		s.skipNested()
	case 't', 'f', 'n':
		for s.pos < len(s.data) && s.data[s.pos] >= 'a' && s.data[s.pos] <= 'z' {
			s.pos++
		}
	default:
		if c == '-' || (c >= '0' && c <= '9') {
			s.Number()
			return
		}
		s.Fail()
	}
}

// skipNested skips an object or array without building anything, tracking
// only depth and strings.
func (s *Scanner) skipNested() {
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
			if _, _, ok := s.RawString(); !ok {
				return
			}
			continue
		}
		s.pos++
	}
	s.Fail()
}

// RawValue consumes a value and returns its JSON text.
func (s *Scanner) RawValue() []byte {
	s.ws()
	start := s.pos
	s.Skip()
	return s.data[start:s.pos]
}

// StringOrNull reads a string, or nil for null or any other value
// (skipped).
func (s *Scanner) StringOrNull() []byte {
	if s.Null() {
		return nil
	}
	if s.Peek() != '"' {
		s.Skip()
		return nil
	}
	v, _ := s.Str()
	return v
}

// IntOrNull reads an integer as Integer does, or 0 for null or any other
// value (skipped).
func (s *Scanner) IntOrNull() int {
	if s.Null() {
		return 0
	}
	if c := s.Peek(); c != '-' && (c < '0' || c > '9') {
		s.Skip()
		return 0
	}
	n, _ := s.Integer()
	return n
}
