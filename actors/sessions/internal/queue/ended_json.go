package queue

import "encoding/json"

// endedJSON is Ended as a fold snapshot keeps it.
type endedJSON struct {
	Cancelled map[string]bool `json:"cancelled,omitempty"`
	Order     []string        `json:"order,omitempty"`
}

// MarshalJSON writes the ended prompts for a fold snapshot.
func (e Ended) MarshalJSON() ([]byte, error) {
	return json.Marshal(endedJSON{Cancelled: e.cancelled, Order: e.order})
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (e *Ended) UnmarshalJSON(b []byte) error {
	var v endedJSON
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	e.cancelled, e.order = v.Cancelled, v.Order
	return nil
}
