package rpc

import "fmt"

// Partials is how much of the streaming message a message_update carries
// in `message` and `assistantMessageEvent.partial` (see the package doc).
type Partials uint8

const (
	// PartialsFull is the spec's shape, the default: the message with all
	// its content so far.
	PartialsFull Partials = iota
	// PartialsSkeleton leaves the text out: role, model and one entry per
	// content block, for clients that only read the deltas.
	PartialsSkeleton
)

// PartialsValues are the accepted names, in the order help lists them.
const PartialsValues = "full, skeleton"

// ParsePartials reads a --partials value.
func ParsePartials(s string) (Partials, error) {
	switch s {
	case "full":
		return PartialsFull, nil
	case "skeleton":
		return PartialsSkeleton, nil
	}
	return 0, fmt.Errorf("unknown partials mode %q (accepted: %s)", s, PartialsValues)
}

func (p Partials) String() string {
	if p == PartialsSkeleton {
		return "skeleton"
	}
	return "full"
}
