package llm

import "context"

// ChunkKind tells which field of a Chunk is set.
type ChunkKind uint8

const (
	ChunkText     ChunkKind = iota + 1 // Text holds a piece of the reply
	ChunkThinking                      // Text holds a piece of the reasoning
	ChunkToolCall                      // ToolCall holds a piece of a tool call
	ChunkUsage                         // Usage holds the token accounting
)

// ToolCallDelta is a piece of one tool call. Index identifies the call
// within the reply; ArgumentsDelta pieces for one Index concatenate to the
// full arguments. ID and Name are set on the first delta of a call (ID is
// then never empty: a provider invents a stable one if the server sent
// none) and on any later delta where the server repeats them.
type ToolCallDelta struct {
	Index          int
	ID             string
	Name           string
	ArgumentsDelta string
}

// Chunk is one streamed event: a union discriminated by Kind. It is a plain
// struct rather than an interface so that passing it to a sink costs no
// allocation; the strings in it are owned by the receiver and may be kept.
type Chunk struct {
	Kind     ChunkKind
	Text     string
	ToolCall ToolCallDelta
	Usage    Usage
}

// Response is the whole reply, assembled from the chunks.
type Response struct {
	// Message has Role assistant, the concatenated Content and Thinking, and
	// the tool calls in index order with their arguments concatenated.
	Message      Message
	FinishReason FinishReason
	// Usage is nil when the server reported none.
	Usage *Usage
	// ID and Model are what the server said, for logs; either may be empty.
	ID    string
	Model string
}

// WithContinuation sets the message's continuation and returns r, for a
// provider finishing the Assembler's response.
func (r *Response) WithContinuation(c *Continuation) *Response {
	r.Message.Continuation = c
	return r
}

// Provider sends a request to a model. Stream calls sink for every chunk in
// the order they arrive, on the calling goroutine, and returns the assembled
// reply once the server has finished. sink may be nil. An error from sink
// aborts the request and is returned wrapped. Cancelling ctx aborts the
// request promptly and Stream returns an error that wraps ctx.Err(). Other
// failures are returned as (or wrap) *Error. Stream starts no goroutine that
// outlives the call.
type Provider interface {
	Stream(ctx context.Context, req Request, sink func(Chunk) error) (*Response, error)
}
