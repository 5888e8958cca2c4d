package tooltext

import (
	"errors"
	"fmt"
)

// Errors a BlockError wraps, for callers that branch on the cause.
var (
	// ErrMalformed: the block's content is neither a JSON call nor call:name{...}.
	ErrMalformed = errors.New("malformed tool call")
	// ErrUnterminated: the reply ended inside a block whose content does not
	// parse, so it was most likely cut off.
	ErrUnterminated = errors.New("unterminated tool call")
	// ErrShadowed: a well-formed block was not run because blocks of a
	// format with higher precedence produced calls (spec section 4b).
	ErrShadowed = errors.New("tool call ignored")
)

// Call is one tool call found in a reply.
type Call struct {
	Name string
	// Arguments is a compact JSON object, keys in the order the model wrote
	// them; never empty ("{}" when the model gave none).
	Arguments string
	// Raw is the block as the model wrote it, tags included.
	Raw    string
	Format Format
}

// BlockError describes a block that did not become a call. It is reported
// rather than dropped so the loop can tell the model what went wrong.
type BlockError struct {
	Format Format
	// Name is the tool name when it could be read, else empty.
	Name string
	Raw  string
	Err  error
}

func (e BlockError) Error() string {
	if e.Name == "" {
		return fmt.Sprintf("%s block: %v", e.Format, e.Err)
	}
	return fmt.Sprintf("%s block for %s: %v", e.Format, e.Name, e.Err)
}

func (e BlockError) Unwrap() error { return e.Err }

// Result returns the tool result that reports this error to the model, so
// it can retry with a well-formed call.
func (e BlockError) Result() ToolResult {
	name := e.Name
	if name == "" {
		name = "tool_call"
	}
	content := ErrorContent(e.Err)
	if !errors.Is(e.Err, ErrShadowed) {
		content += ". Expected " + callExample
	}
	return ToolResult{Name: name, Content: content}
}

// Result is what a reply says once tool calls and thinking are taken out.
type Result struct {
	// Text is the visible reply: calls and thinking removed, leading and
	// trailing white space trimmed.
	Text string
	// Thinking is the content of the thinking blocks, each trimmed, joined
	// by a blank line.
	Thinking string
	Calls    []Call
	// Errors lists, in reply order, the blocks that did not become calls.
	Errors []BlockError
}

// Final reports whether the reply ends the agentic loop: no call to run and
// no broken block to report back.
func (r Result) Final() bool { return len(r.Calls) == 0 && len(r.Errors) == 0 }

// block is a closed (or cut-off) tool call region before precedence is
// applied.
type block struct {
	call Call
	err  *BlockError
}

// resolve applies the spec's precedence: calls come from the first format,
// in precedence order, with at least one well-formed block. Well-formed
// blocks of other formats are reported as shadowed instead of vanishing.
func resolve(blocks []block) (calls []Call, errs []BlockError) {
	var chosen Format
	for _, f := range precedence {
		if hasCall(blocks, f) {
			chosen = f
			break
		}
	}
	for _, b := range blocks {
		switch {
		case b.err != nil:
			errs = append(errs, *b.err)
		case b.call.Format == chosen:
			calls = append(calls, b.call)
		default:
			errs = append(errs, BlockError{
				Format: b.call.Format,
				Name:   b.call.Name,
				Raw:    b.call.Raw,
				Err:    fmt.Errorf("%w: %s blocks in the same reply take precedence", ErrShadowed, chosen),
			})
		}
	}
	return calls, errs
}

func hasCall(blocks []block, f Format) bool {
	for _, b := range blocks {
		if b.err == nil && b.call.Format == f {
			return true
		}
	}
	return false
}
