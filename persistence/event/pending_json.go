package event

import "encoding/json"

// MarshalJSON writes the queue as its prompts in order: what a snapshot of
// a fold that holds one keeps (see persistence.Snapshot).
func (p Pending) MarshalJSON() ([]byte, error) { return json.Marshal(p.entries) }

// UnmarshalJSON reads what MarshalJSON wrote.
func (p *Pending) UnmarshalJSON(b []byte) error {
	p.entries = nil
	return json.Unmarshal(b, &p.entries)
}
