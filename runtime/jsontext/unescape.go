package jsontext

import (
	"unicode/utf16"
	"unicode/utf8"
)

// AppendUnescaped appends the content of a JSON string (raw, between its
// quotes) decoded as encoding/json decodes it: escapes resolved, a lone
// surrogate and invalid UTF-8 as U+FFFD. It reports false for what
// encoding/json refuses: a bad escape or a raw control character.
func AppendUnescaped(dst, raw []byte) ([]byte, bool) {
	for i := 0; i < len(raw); {
		c := raw[i]
		switch {
		case c == '\\':
			if i+1 >= len(raw) {
				return dst, false
			}
			e := raw[i+1]
			i += 2
			if e != 'u' {
				b, ok := unescapeByte(e)
				if !ok {
					return dst, false
				}
				dst = append(dst, b)
				continue
			}
			r, ok := hex4(raw[i:])
			if !ok {
				return dst, false
			}
			i += 4
			if utf16.IsSurrogate(r) {
				r2 := rune(-1)
				if i+6 <= len(raw) && raw[i] == '\\' && raw[i+1] == 'u' {
					r2, _ = hex4(raw[i+2:])
				}
				if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
					i += 6
					r = d
				} else {
					r = utf8.RuneError
				}
			}
			dst = utf8.AppendRune(dst, r)
		case c < 0x20:
			return dst, false
		case c < utf8.RuneSelf:
			dst = append(dst, c)
			i++
		default:
			r, size := utf8.DecodeRune(raw[i:])
			i += size
			dst = utf8.AppendRune(dst, r)
		}
	}
	return dst, true
}

func unescapeByte(e byte) (byte, bool) {
	switch e {
	case '"', '\\', '/':
		return e, true
	case 'b':
		return '\b', true
	case 'f':
		return '\f', true
	case 'n':
		return '\n', true
	case 'r':
		return '\r', true
	case 't':
		return '\t', true
	}
	return 0, false
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
