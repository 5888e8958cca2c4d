package tooltext

import (
	"unicode"
	"unicode/utf8"
)

// trimmer passes text through while dropping leading and trailing white
// space, so a stream of segments yields exactly strings.TrimSpace of their
// concatenation. White space is held until something visible follows it:
// until then nobody can tell whether it is trailing.
//
// Callers must not split a valid multi-byte rune across segments, or a
// split white-space rune would be taken for two visible bytes.
type trimmer struct {
	ws      []byte // held white space, after visible output started
	started bool   // visible output in the current block
	any     bool   // visible output in any block
}

// beginBlock starts a separately trimmed block, whose output feed joins to
// earlier blocks' output with its sep.
func (t *trimmer) beginBlock() {
	t.ws = t.ws[:0]
	t.started = false
}

// feed appends to dst what of p can be shown now; sep goes before the
// first visible byte of a block when an earlier block had output.
func (t *trimmer) feed(dst, p []byte, sep string) []byte {
	for len(p) > 0 {
		n := visiblePrefix(p)
		if n > 0 {
			if t.started {
				dst = append(dst, t.ws...)
			} else if t.any {
				dst = append(dst, sep...)
			}
			t.ws = t.ws[:0]
			t.started, t.any = true, true
			dst = append(dst, p[:n]...)
			p = p[n:]
		}
		n = spacePrefix(p)
		if t.started {
			t.ws = append(t.ws, p[:n]...)
		}
		p = p[n:]
	}
	return dst
}

func visiblePrefix(p []byte) int {
	i := 0
	for i < len(p) {
		r, n := rune(p[i]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeRune(p[i:])
		}
		if unicode.IsSpace(r) {
			break
		}
		i += n
	}
	return i
}

func spacePrefix(p []byte) int {
	i := 0
	for i < len(p) {
		r, n := rune(p[i]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeRune(p[i:])
		}
		if !unicode.IsSpace(r) {
			break
		}
		i += n
	}
	return i
}

// incompleteRune is the length of a trailing rune prefix in p that more
// input could complete; holding it back keeps runes whole for the trimmer.
func incompleteRune(p []byte) int {
	for k := 1; k <= len(p) && k < utf8.UTFMax; k++ {
		if !utf8.RuneStart(p[len(p)-k]) {
			continue
		}
		if utf8.FullRune(p[len(p)-k:]) {
			return 0
		}
		return k
	}
	return 0
}
