package tooltext

import (
	"encoding/json"
	"fmt"
	"unicode"
	"unicode/utf8"

	"github.com/troupehq/troupe/runtime/jsontext"
)

// The spec's fix_unquoted_keys tolerates exactly two departures from JSON
// that small models make: bare identifier keys ({path: "x"}) and trailing
// commas before } or ]. Everything else (single quotes, bare values,
// comments, raw newlines in strings) is an error reported to the model, as
// hugind would reject it too.

// maxDepth bounds nesting so hostile input cannot exhaust the stack.
const maxDepth = 512

// normalizeJSON reads one lenient JSON value and returns it as compact,
// strict JSON: keys in the order written, strings re-escaped the way
// encoding/json does with HTML escaping off, numbers kept as written.
func normalizeJSON(src []byte) ([]byte, error) {
	p := lenient{src: src, out: make([]byte, 0, len(src))}
	if err := p.value(0); err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.pos < len(p.src) {
		return nil, p.errorf("unexpected %s after the value", p.describe())
	}
	return p.out, nil
}

// objectMembers reads a lenient JSON object and calls visit with each key
// and its canonical value in order. Members read before an error have been
// visited, so a report can still name the tool when its arguments are bad.
func objectMembers(src []byte, visit func(key string, value []byte)) error {
	p := lenient{src: src}
	p.skipSpace()
	if p.peek() != '{' {
		return p.errorf("expected '{', found %s", p.describe())
	}
	p.pos++
	p.skipSpace()
	more := p.peek() != '}'
	if !more {
		p.pos++
	}
	for more {
		key, err := p.key()
		if err != nil {
			return err
		}
		p.skipSpace()
		if p.peek() != ':' {
			return p.errorf("expected ':' after object key, found %s", p.describe())
		}
		p.pos++
		p.out = p.out[:0]
		if err := p.value(1); err != nil {
			return err
		}
		visit(key, p.out)
		if more, err = p.separator('}'); err != nil {
			return err
		}
	}
	p.skipSpace()
	if p.pos < len(p.src) {
		return p.errorf("unexpected %s after the value", p.describe())
	}
	return nil
}

type lenient struct {
	src []byte
	pos int
	out []byte
}

func (p *lenient) errorf(format string, args ...any) error {
	return fmt.Errorf("invalid json at offset %d: %s", p.pos, fmt.Sprintf(format, args...))
}

// describe names the byte at pos for an error message.
func (p *lenient) describe() string {
	if p.pos >= len(p.src) {
		return "end of input"
	}
	r, _ := utf8.DecodeRune(p.src[p.pos:])
	return fmt.Sprintf("%q", r)
}

func (p *lenient) skipSpace() {
	for p.pos < len(p.src) {
		switch p.src[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *lenient) peek() byte {
	if p.pos >= len(p.src) {
		return 0
	}
	return p.src[p.pos]
}

func (p *lenient) value(depth int) error {
	p.skipSpace()
	switch c := p.peek(); {
	case c == '{':
		return p.object(depth + 1)
	case c == '[':
		return p.array(depth + 1)
	case c == '"':
		_, err := p.str()
		return err
	case c == '-' || isDigit(c):
		return p.number()
	}
	return p.literal()
}

func (p *lenient) object(depth int) error {
	if depth > maxDepth {
		return p.errorf("nesting deeper than %d", maxDepth)
	}
	p.pos++
	p.out = append(p.out, '{')
	p.skipSpace()
	if p.peek() == '}' {
		p.pos++
		p.out = append(p.out, '}')
		return nil
	}
	for {
		if _, err := p.key(); err != nil {
			return err
		}
		p.skipSpace()
		if p.peek() != ':' {
			return p.errorf("expected ':' after object key, found %s", p.describe())
		}
		p.pos++
		p.out = append(p.out, ':')
		if err := p.value(depth); err != nil {
			return err
		}
		more, err := p.separator('}')
		if err != nil || !more {
			return err
		}
		p.out = append(p.out, ',')
	}
}

func (p *lenient) array(depth int) error {
	if depth > maxDepth {
		return p.errorf("nesting deeper than %d", maxDepth)
	}
	p.pos++
	p.out = append(p.out, '[')
	p.skipSpace()
	if p.peek() == ']' {
		p.pos++
		p.out = append(p.out, ']')
		return nil
	}
	for {
		if err := p.value(depth); err != nil {
			return err
		}
		more, err := p.separator(']')
		if err != nil || !more {
			return err
		}
		p.out = append(p.out, ',')
	}
}

// separator reads what follows a member: a comma with another member after
// it (more), or the closing bracket, possibly after a trailing comma.
func (p *lenient) separator(end byte) (more bool, err error) {
	p.skipSpace()
	c := p.peek()
	if c == ',' {
		p.pos++
		p.skipSpace()
		c = p.peek()
		if c != end {
			return true, nil
		}
	}
	if c != end {
		return false, p.errorf("expected ',' or '%c', found %s", end, p.describe())
	}
	p.pos++
	p.out = append(p.out, end)
	return false, nil
}

// key reads an object key, quoted or a bare identifier, and returns it.
func (p *lenient) key() (string, error) {
	p.skipSpace()
	if p.peek() == '"' {
		return p.str()
	}
	start := p.pos
	for p.pos < len(p.src) {
		r, n := utf8.DecodeRune(p.src[p.pos:])
		ok := r == '_' || unicode.IsLetter(r) || (p.pos > start && unicode.IsDigit(r))
		if !ok {
			break
		}
		p.pos += n
	}
	if p.pos == start {
		return "", p.errorf("expected an object key, found %s", p.describe())
	}
	key := string(p.src[start:p.pos])
	p.out = jsontext.AppendString(p.out, key, false)
	return key, nil
}

// str reads a strict JSON string and returns its value.
func (p *lenient) str() (string, error) {
	start := p.pos
	i := p.pos + 1
	for ; i < len(p.src); i++ {
		c := p.src[i]
		if c == '\\' {
			i++
			continue
		}
		if c == '"' {
			break
		}
		if c < 0x20 {
			p.pos = i
			return "", p.errorf("control character %q in string; escape it", c)
		}
	}
	if i >= len(p.src) {
		return "", p.errorf("unterminated string")
	}
	var s string
	if err := json.Unmarshal(p.src[start:i+1], &s); err != nil {
		return "", p.errorf("bad string: %v", err)
	}
	p.pos = i + 1
	p.out = jsontext.AppendString(p.out, s, false)
	return s, nil
}

func (p *lenient) number() error {
	start := p.pos
	if p.peek() == '-' {
		p.pos++
	}
	switch {
	case p.peek() == '0':
		p.pos++
	case isDigit(p.peek()):
		p.digits()
	default:
		return p.errorf("expected a digit, found %s", p.describe())
	}
	if p.peek() == '.' {
		p.pos++
		if !isDigit(p.peek()) {
			return p.errorf("expected a digit after '.', found %s", p.describe())
		}
		p.digits()
	}
	if c := p.peek(); c == 'e' || c == 'E' {
		p.pos++
		if c := p.peek(); c == '+' || c == '-' {
			p.pos++
		}
		if !isDigit(p.peek()) {
			return p.errorf("expected an exponent digit, found %s", p.describe())
		}
		p.digits()
	}
	p.out = append(p.out, p.src[start:p.pos]...)
	return nil
}

func (p *lenient) digits() {
	for isDigit(p.peek()) {
		p.pos++
	}
}

func (p *lenient) literal() error {
	for _, lit := range [...]string{"true", "false", "null"} {
		end := p.pos + len(lit)
		if end <= len(p.src) && string(p.src[p.pos:end]) == lit && !isIdentByte(p.byteAt(end)) {
			p.pos = end
			p.out = append(p.out, lit...)
			return nil
		}
	}
	return p.errorf("expected a value, found %s", p.describe())
}

func (p *lenient) byteAt(i int) byte {
	if i >= len(p.src) {
		return 0
	}
	return p.src[i]
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isIdentByte(c byte) bool {
	return c == '_' || isDigit(c) || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || c >= utf8.RuneSelf
}
