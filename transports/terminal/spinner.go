package terminal

import "fmt"

var spinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// spinnerDelay is how long the model may take before the spinner shows,
// so a quick answer does not flicker.
const spinnerDelay = 200_000_000 // ns

// Tick redraws the spinner with the time waited, on a terminal, while a
// turn runs and the model has not answered yet (and nothing else holds
// the line: a streamed block, an open tool line, a permission prompt).
func (r *Renderer) Tick() {
	if !r.live || !r.waiting || !r.running || r.asking() || r.openTool != "" || r.block != "" || !r.lineStart || r.err != nil {
		return
	}
	waited := r.now().Sub(r.waitSince)
	if waited < spinnerDelay {
		return
	}
	r.frame = (r.frame + 1) % len(spinnerFrames)
	s := "\r\x1b[2K" + r.st.wrap(sgrCyan, spinnerFrames[r.frame]) + r.st.wrap(sgrDim, fmt.Sprintf(" waiting for the model %.1fs", waited.Seconds()))
	if _, err := r.side.Write([]byte(s)); err != nil {
		r.err = err
		return
	}
	r.spinnerShown = true
}

// clearSpinner erases the spinner before anything else is written.
func (r *Renderer) clearSpinner() {
	if !r.spinnerShown {
		return
	}
	r.spinnerShown = false
	if _, err := r.side.Write([]byte("\r\x1b[2K")); err != nil {
		r.err = err
	}
}
