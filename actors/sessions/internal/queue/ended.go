package queue

// endedCap bounds the prompts Ended remembers: an amend names a prompt
// just sent, not one from long ago.
const endedCap = 256

// Ended are the latest prompts to leave the queue for good, by message
// id, each cancelled or not (run to its end): what an amend naming one
// that is neither waiting nor running answers (target_cancelled,
// target_completed), where an id it never held is target_not_found.
type Ended struct {
	cancelled map[string]bool
	order     []string // oldest first
}

// add records id's end; a later end of the same id (an amend's cancel of
// a run that ends) replaces it.
func (e *Ended) add(id string, cancelled bool) {
	if id == "" {
		return
	}
	if e.cancelled == nil {
		e.cancelled = map[string]bool{}
	}
	if _, seen := e.cancelled[id]; !seen {
		e.order = append(e.order, id)
	}
	e.cancelled[id] = cancelled
	for len(e.order) > endedCap {
		delete(e.cancelled, e.order[0])
		e.order = e.order[1:]
	}
}

// Outcome says whether id ended, and if so whether cancelled.
func (e *Ended) Outcome(id string) (ended, cancelled bool) {
	c, ok := e.cancelled[id]
	return ok, c
}

// Clone copies e.
func (e Ended) Clone() Ended {
	out := Ended{cancelled: make(map[string]bool, len(e.cancelled)), order: append([]string(nil), e.order...)}
	for k, v := range e.cancelled {
		out.cancelled[k] = v
	}
	return out
}
