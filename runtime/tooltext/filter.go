package tooltext

import "bytes"

// Delta is what a chunk of a streamed reply makes visible.
type Delta struct {
	Text     string
	Thinking string
}

type state uint8

const (
	stateText state = iota
	stateThink
	stateCall
)

// Filter splits a streamed reply into visible text, thinking and tool
// calls as it arrives. It holds back only what could still turn into a tag
// (so a UI never flashes "<tool_ca"), white space that may turn out to be
// trailing, and incomplete runes. The zero value is ready to use; a Filter
// is not safe for concurrent use.
//
// Parse is a Filter fed the whole reply at once, so streamed and whole
// replies always agree.
type Filter struct {
	buf     []byte // input not yet consumed; in stateCall it starts at the open tag
	state   state
	tag     *tag // the open call block's tags
	scanRel int  // offset in the open block where the close-tag search resumes

	text, think trimmer
	vis, thk    []byte // all visible text and thinking emitted so far

	blocks []block
	done   bool
	result Result
}

const thinkSeparator = "\n\n"

// Push consumes the next chunk of the reply and returns what it makes
// visible. After Close it returns an empty Delta.
func (f *Filter) Push(chunk string) Delta {
	if f.done {
		return Delta{}
	}
	return f.feed(chunk, false)
}

// Close ends the reply. It returns what was still held back and the
// complete Result, as Parse would give for the whole reply. Calls are only
// known here because the spec's precedence between tag formats depends on
// every block in the reply. Later calls return an empty Delta and the
// same Result.
func (f *Filter) Close() (Delta, Result) {
	if f.done {
		return Delta{}, f.result
	}
	d := f.feed("", true)
	f.done = true
	calls, errs := resolve(f.blocks)
	f.result = Result{Text: string(f.vis), Thinking: string(f.thk), Calls: calls, Errors: errs}
	return d, f.result
}

// Reset makes the Filter ready for a new reply, keeping its buffers.
func (f *Filter) Reset() {
	*f = Filter{
		buf:   f.buf[:0],
		text:  trimmer{ws: f.text.ws[:0]},
		think: trimmer{ws: f.think.ws[:0]},
		vis:   f.vis[:0],
		thk:   f.thk[:0],
	}
}

func (f *Filter) feed(chunk string, final bool) Delta {
	v0, t0 := len(f.vis), len(f.thk)
	f.buf = append(f.buf, chunk...)
	i := 0
	for i < len(f.buf) {
		var n int
		var more bool
		switch f.state {
		case stateText:
			n, more = f.scanText(f.buf[i:], final)
		case stateThink:
			n, more = f.scanThink(f.buf[i:], final)
		default:
			n, more = f.scanCall(f.buf[i:], final)
		}
		i += n
		if !more {
			break
		}
	}
	if i > 0 {
		f.buf = f.buf[:copy(f.buf, f.buf[i:])]
	}
	return Delta{Text: string(f.vis[v0:]), Thinking: string(f.thk[t0:])}
}

// Each scan method consumes a prefix of rest and reports whether scanning
// should go on; false means it needs more input.

func (f *Filter) scanText(rest []byte, final bool) (int, bool) {
	j := bytes.IndexByte(rest, '<')
	if j < 0 {
		n := len(rest)
		if !final {
			n -= incompleteRune(rest)
		}
		f.vis = f.text.feed(f.vis, rest[:n], "")
		return n, false
	}
	if j > 0 {
		f.vis = f.text.feed(f.vis, rest[:j], "")
		return j, true
	}
	t, partial := matchOpen(rest)
	if t == nil {
		if partial && !final {
			return 0, false
		}
		f.vis = f.text.feed(f.vis, rest[:1], "")
		return 1, true
	}
	if t.format == 0 {
		f.state = stateThink
		f.think.beginBlock()
		return len(t.open), true
	}
	// The block stays in buf, unconsumed, until its close tag arrives.
	f.state, f.tag, f.scanRel = stateCall, t, len(t.open)
	return 0, true
}

func (f *Filter) scanThink(rest []byte, final bool) (int, bool) {
	j := bytes.Index(rest, []byte(thinkClose))
	if j < 0 {
		// The spec strips an unclosed thinking block to the end of the reply.
		n := len(rest)
		if !final {
			n -= max(partialSuffix(rest, thinkClose), incompleteRune(rest))
		}
		f.thk = f.think.feed(f.thk, rest[:n], thinkSeparator)
		return n, false
	}
	f.thk = f.think.feed(f.thk, rest[:j], thinkSeparator)
	f.state = stateText
	return j + len(thinkClose), true
}

func (f *Filter) scanCall(rest []byte, final bool) (int, bool) {
	t := f.tag
	if k := bytes.Index(rest[f.scanRel:], []byte(t.close)); k >= 0 {
		end := f.scanRel + k
		f.addBlock(rest[:end+len(t.close)], rest[len(t.open):end], true)
		f.state = stateText
		return end + len(t.close), true
	}
	if !final {
		f.scanRel = max(f.scanRel, len(rest)-len(t.close)+1)
		return 0, false
	}
	f.addBlock(rest, rest[len(t.open):], false)
	f.state = stateText
	return len(rest), false
}

func (f *Filter) addBlock(raw, inner []byte, closed bool) {
	format := f.tag.format
	name, args, err := parseInner(inner)
	if err == nil {
		f.blocks = append(f.blocks, block{call: Call{Name: name, Arguments: args, Raw: string(raw), Format: format}})
		return
	}
	if closed {
		err = wrapMalformed(err)
	} else {
		// A reply cut off inside a block most likely hit a token limit; the
		// parse error would only describe the truncation.
		err = unterminated(f.tag.close)
	}
	f.blocks = append(f.blocks, block{err: &BlockError{Format: format, Name: name, Raw: string(raw), Err: err}})
}
