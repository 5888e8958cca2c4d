package rpc

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	"github.com/troupehq/troupe/runtime/jsontext"
)

// argsPrefix shows a tool call's arguments while they stream, as pi's
// parseStreamingJson does: the JSON read so far, cut after its last
// complete value (or inside the string value being written) and closed.
// It reads each delta once and keeps the compacted text, so a delta costs
// its own length; rendering copies the kept text, the cost of the line it
// goes into. What it renders is valid JSON by construction: a byte that
// breaks the grammar freezes it at the last valid rendering.
type argsPrefix struct {
	buf      []byte // compacted: no whitespace outside strings
	safe     int    // buf[:safe] plus closers is valid JSON
	strSafe  int    // in a value string: buf[:strSafe] plus `"` and closers is
	inValStr bool
	stack    []byte // the open containers, '{' or '['
	st       argsState
	key      bool   // the string being read is a key
	empty    bool   // a container just opened: its closer may follow
	tok      int    // where the number or literal being read starts
	hex      int    // \u digits still to come
	carry    []byte // a character cut between two pieces
}

type argsState uint8

const (
	stValue argsState = iota
	stKey
	stColon
	stAfter
	stString
	stEscape
	stUnicode
	stNumber
	stLiteral
	stDone
	stFailed
)

// write feeds the next piece of the arguments' text.
func (p *argsPrefix) write(s string) {
	if len(p.carry) > 0 {
		s = string(p.carry) + s
		p.carry = p.carry[:0]
	}
	for i := 0; i < len(s) && p.st != stFailed; {
		c := s[i]
		if p.st == stString && c >= utf8.RuneSelf {
			if !utf8.FullRuneInString(s[i:]) {
				p.carry = append(p.carry, s[i:]...)
				return
			}
			_, size := utf8.DecodeRuneInString(s[i:])
			p.buf = jsontext.AppendEscaped(p.buf, s[i:i+size], false)
			p.charDone()
			i += size
			continue
		}
		if p.step(c) {
			i++
		}
	}
}

// step reads one byte; false means the byte ended a number or literal and
// must be read again in the state that follows.
func (p *argsPrefix) step(c byte) bool {
	switch p.st {
	case stString:
		switch {
		case c == '"':
			p.buf = append(p.buf, c)
			if p.key {
				p.st = stColon
			} else {
				p.valueDone()
			}
		case c == '\\':
			p.buf = append(p.buf, c)
			p.st = stEscape
		case c < 0x20:
			p.st = stFailed
		default:
			p.buf = append(p.buf, c)
			p.charDone()
		}
	case stEscape:
		switch c {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			p.buf = append(p.buf, c)
			p.st = stString
			p.charDone()
		case 'u':
			p.buf = append(p.buf, c)
			p.st, p.hex = stUnicode, 4
		default:
			p.st = stFailed
		}
	case stUnicode:
		if !isHex(c) {
			p.st = stFailed
			return true
		}
		p.buf = append(p.buf, c)
		if p.hex--; p.hex == 0 {
			p.st = stString
			p.charDone()
		}
	case stNumber, stLiteral:
		if (p.st == stNumber && isNumberByte(c)) || (p.st == stLiteral && c >= 'a' && c <= 'z' && len(p.buf)-p.tok < 5) {
			p.buf = append(p.buf, c)
			return true
		}
		if !p.scalarValid() {
			p.st = stFailed
			return true
		}
		p.valueDone()
		return false
	default:
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			return true
		}
		p.structural(c)
	}
	return true
}

// structural reads a byte outside strings and scalars.
func (p *argsPrefix) structural(c byte) {
	switch p.st {
	case stValue:
		p.valueStart(c)
	case stKey:
		switch {
		case c == '"':
			p.buf = append(p.buf, c)
			p.st, p.key = stString, true
		case c == '}' && p.empty:
			p.close(c)
		default:
			p.st = stFailed
		}
	case stColon:
		if c != ':' {
			p.st = stFailed
			return
		}
		p.buf = append(p.buf, c)
		p.st, p.empty = stValue, false
	case stAfter:
		top := p.stack[len(p.stack)-1]
		switch {
		case c == ',':
			p.buf = append(p.buf, c)
			p.st, p.empty = stValue, false
			if top == '{' {
				p.st = stKey
			}
		case (c == '}' && top == '{') || (c == ']' && top == '['):
			p.close(c)
		default:
			p.st = stFailed
		}
	default: // stDone: one value only
		p.st = stFailed
	}
}

func (p *argsPrefix) valueStart(c byte) {
	switch {
	case c == '"':
		p.buf = append(p.buf, c)
		p.st, p.key, p.inValStr = stString, false, true
		p.strSafe = len(p.buf)
	case c == '{' || c == '[':
		p.buf = append(p.buf, c)
		p.stack = append(p.stack, c)
		p.safe = len(p.buf)
		p.st, p.empty = stValue, true
		if c == '{' {
			p.st = stKey
		}
	case c == '-' || (c >= '0' && c <= '9'):
		p.tok = len(p.buf)
		p.buf = append(p.buf, c)
		p.st = stNumber
	case c == 't' || c == 'f' || c == 'n':
		p.tok = len(p.buf)
		p.buf = append(p.buf, c)
		p.st = stLiteral
	case c == ']' && p.empty:
		p.close(c)
	default:
		p.st = stFailed
	}
}

func (p *argsPrefix) close(c byte) {
	p.buf = append(p.buf, c)
	p.stack = p.stack[:len(p.stack)-1]
	p.valueDone()
}

func (p *argsPrefix) charDone() {
	if p.inValStr {
		p.strSafe = len(p.buf)
	}
}

func (p *argsPrefix) valueDone() {
	p.safe, p.inValStr, p.empty = len(p.buf), false, false
	p.st = stAfter
	if len(p.stack) == 0 {
		p.st = stDone
	}
}

func (p *argsPrefix) scalarValid() bool {
	t := p.buf[p.tok:]
	if p.st == stLiteral {
		return bytes.Equal(t, []byte("true")) || bytes.Equal(t, []byte("false")) || bytes.Equal(t, []byte("null"))
	}
	return json.Valid(t)
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func isNumberByte(c byte) bool {
	return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

// renderLen is len(render(nil)), so a line can be sized before it is built.
func (p *argsPrefix) renderLen() int {
	switch {
	case p.inValStr:
		return p.strSafe + 1 + len(p.stack)
	case p.safe == 0:
		return 2
	}
	return p.safe + len(p.stack)
}

// render appends the arguments so far; `{}` until a value has begun.
func (p *argsPrefix) render(dst []byte) []byte {
	switch {
	case p.inValStr:
		dst = append(dst, p.buf[:p.strSafe]...)
		dst = append(dst, '"')
	case p.safe == 0:
		return append(dst, '{', '}')
	default:
		dst = append(dst, p.buf[:p.safe]...)
	}
	for i := len(p.stack) - 1; i >= 0; i-- {
		if p.stack[i] == '{' {
			dst = append(dst, '}')
		} else {
			dst = append(dst, ']')
		}
	}
	return dst
}
