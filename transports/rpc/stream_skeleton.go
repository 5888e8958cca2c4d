package rpc

// Skeleton partials (--partials skeleton): the message without its text,
// so that a delta line has a constant size. The text arrives in the
// deltas, whole in each block's *_end event and in message_end.

type skelBlock struct {
	Type string `json:"type"`
	ID   string `json:"id,omitempty"`
	Name string `json:"name,omitempty"`
}

type skeleton struct {
	Role      string      `json:"role"`
	Content   []skelBlock `json:"content"`
	API       string      `json:"api"`
	Provider  string      `json:"provider"`
	Model     string      `json:"model"`
	Timestamp int64       `json:"timestamp"`
}

func (s *streaming) encodeSkeleton() {
	sk := skeleton{Role: "assistant", Content: []skelBlock{}, API: api, Provider: s.provider, Model: s.model, Timestamp: s.ts}
	for _, b := range s.blocks {
		sk.Content = append(sk.Content, skelBlock{Type: b.kind, ID: b.id, Name: b.name})
	}
	s.skel, _ = marshal(sk)
}
