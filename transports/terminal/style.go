package terminal

// style writes ANSI SGR sequences, or nothing when colour is off (stdout
// not a terminal, or NO_COLOR set: the caller decides).
type style struct{ colour bool }

const (
	sgrReset  = "\x1b[0m"
	sgrBold   = "\x1b[1m"
	sgrDim    = "\x1b[2m"
	sgrRed    = "\x1b[31m"
	sgrGreen  = "\x1b[32m"
	sgrYellow = "\x1b[33m"
	sgrBlue   = "\x1b[34m"
	sgrCyan   = "\x1b[36m"
)

// wrap styles s with the sequence seq.
func (s style) wrap(seq, text string) string {
	if !s.colour || text == "" {
		return text
	}
	return seq + text + sgrReset
}

// on and off open and close a style around text written in pieces.
func (s style) on(seq string) string {
	if !s.colour {
		return ""
	}
	return seq
}

func (s style) off() string { return s.on(sgrReset) }
