package conversation

import (
	"encoding/json"

	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/runtime/tooltext"
)

// saved is the fold as a snapshot keeps it (see persistence.Snapshot):
// every field, so that folding on from a snapshot is folding on from the
// conversation that was saved.
type saved struct {
	Entries     []Entry               `json:"entries,omitempty"`
	Pending     event.Pending         `json:"pending"`
	Origins     map[string]string     `json:"origins,omitempty"`
	Names       map[string]string     `json:"names,omitempty"`
	TextResults []tooltext.ToolResult `json:"text_results,omitempty"`
	TextID      string                `json:"text_id,omitempty"`
}

// MarshalJSON writes the whole fold.
func (c Conversation) MarshalJSON() ([]byte, error) {
	return json.Marshal(saved{Entries: c.entries, Pending: c.pending, Origins: c.origins, Names: c.names,
		TextResults: c.textResults, TextID: c.textID})
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (c *Conversation) UnmarshalJSON(b []byte) error {
	var v saved
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*c = Conversation{entries: v.Entries, pending: v.Pending, origins: v.Origins, names: v.Names,
		textResults: v.TextResults, textID: v.TextID}
	// ApplyDecoded makes both maps when it finds origins nil: an empty
	// one written (omitted) must not come back nil beside the other.
	if c.origins == nil {
		c.origins = map[string]string{}
	}
	if c.names == nil {
		c.names = map[string]string{}
	}
	return nil
}
