package event

// Pending is the fold of a session's prompt queue as its log tells it: the
// prompts queued and not yet delivered, in the order the queue takes them.
// The engine's conversation and the transports' projection kit fold it
// with this one type, so they agree on what a delivery delivers.
//
// The zero value is empty and ready; it is a value, so a copy shares the
// entries' content (Clone copies the order).
type Pending struct {
	entries []Prompt
}

// Prompt is one queued prompt.
type Prompt struct {
	MessageID string
	Content   []Block
	Delivery  string // prompt | steer | follow_up
	Client    string
	Ancillary bool // machine traffic: see PromptQueuedPayload
}

// Apply folds one event in, given its decoded payload (DecodePayload's
// result). An event that delivers a queued prompt (run.started for a
// prompt, prompt.delivered for a steer or follow-up) returns it, and true.
// prompt.amended edits a queued prompt like prompt.updated; the engine
// writes it for the running prompt, which is no longer here.
func (p *Pending) Apply(kind Kind, payload any) (Prompt, bool) {
	switch m := payload.(type) {
	case *PromptQueuedPayload:
		p.insert(Prompt{MessageID: m.MessageID, Content: m.Content, Delivery: m.Delivery, Client: m.Client}, m.Position, m.AfterMessageID)
	case *PromptChangedPayload:
		i := p.index(m.MessageID)
		switch {
		case i < 0:
		case kind == PromptCancelled:
			p.remove(i)
		case kind == PromptUpdated || kind == PromptAmended:
			p.entries[i].Content = m.Content
		}
	case *RunStartedPayload:
		return p.Take(m.RunID)
	case *PromptDeliveredPayload:
		return p.Take(m.MessageID)
	}
	return Prompt{}, false
}

// insert places e at the head, the tail, or right after another entry, as
// the queue does.
func (p *Pending) insert(e Prompt, position, after string) {
	at := len(p.entries)
	switch position {
	case "head":
		at = 0
	case "after":
		if i := p.index(after); i >= 0 {
			at = i + 1
		}
	}
	p.entries = append(p.entries, Prompt{})
	copy(p.entries[at+1:], p.entries[at:])
	p.entries[at] = e
}

// Take removes the prompt id and returns it. The queue takes a prompt when
// it hands it on, before the event that delivers it is written.
func (p *Pending) Take(id string) (Prompt, bool) {
	i := p.index(id)
	if i < 0 {
		return Prompt{}, false
	}
	e := p.entries[i]
	p.remove(i)
	return e, true
}

func (p *Pending) remove(i int) {
	p.entries = append(p.entries[:i], p.entries[i+1:]...)
}

func (p *Pending) index(id string) int {
	for i, e := range p.entries {
		if e.MessageID == id {
			return i
		}
	}
	return -1
}

// Restore puts prompts taken without an event back at the head, in their
// order: a turn that could not deliver them gives them back.
func (p *Pending) Restore(ps []Prompt) {
	p.entries = append(append([]Prompt(nil), ps...), p.entries...)
}

// Index is where the prompt id waits (0 is next), or -1.
func (p *Pending) Index(id string) int { return p.index(id) }

// Len is how many prompts wait.
func (p *Pending) Len() int { return len(p.entries) }

// Has reports whether the prompt id waits.
func (p *Pending) Has(id string) bool { return p.index(id) >= 0 }

// Entries are the waiting prompts in order; the slice is the fold's own,
// to read, not to keep.
func (p *Pending) Entries() []Prompt { return p.entries }

// Clone copies the order, for a fold that goes on separately.
func (p Pending) Clone() Pending {
	return Pending{entries: append([]Prompt(nil), p.entries...)}
}
