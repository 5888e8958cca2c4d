package scale

import (
	"context"
	"fmt"

	"github.com/troupehq/troupe/runtime/llm"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// SmallFile is the file the first answer of every session reads, in the
// sessions' working directory.
const SmallFile = "small.txt"

// toolArgs are the arguments of the one tool call.
var toolArgs = fmt.Sprintf(`{"path":%q}`, SmallFile)

// Token is the text of every delta.
const Token = "x"

// provider answers each request by where it falls in its session: the
// first request of a session (one user message, nothing else) gets the
// reply that calls the tool, every other request the text reply. Deciding
// from the request alone keeps it correct however sessions interleave,
// where a script's replies are consumed in arrival order across sessions.
type provider struct {
	withTool, text *llmserver.Provider
}

func newProvider(deltas int) (*provider, error) {
	tool, err := llmserver.NewProvider(llmserver.Script{Default: &llmserver.Reply{Steps: []llmserver.Step{
		llmserver.Tokens(deltas, Token),
		llmserver.ToolCall("", "read", toolArgs),
	}}}, llmserver.WithoutRecording())
	if err != nil {
		return nil, fmt.Errorf("tool reply: %w", err)
	}
	text, err := llmserver.NewProvider(llmserver.Script{Default: &llmserver.Reply{Steps: []llmserver.Step{
		llmserver.Tokens(deltas, Token),
	}}}, llmserver.WithoutRecording())
	if err != nil {
		return nil, fmt.Errorf("text reply: %w", err)
	}
	return &provider{withTool: tool, text: text}, nil
}

func (p *provider) Stream(ctx context.Context, req llm.Request, sink func(llm.Chunk) error) (*llm.Response, error) {
	if firstRequest(req.Messages) {
		return p.withTool.Stream(ctx, req, sink)
	}
	return p.text.Stream(ctx, req, sink)
}

// firstRequest: the session's history so far is its first user message.
func firstRequest(msgs []llm.Message) bool {
	users := 0
	for _, m := range msgs {
		switch m.Role {
		case llm.RoleUser:
			users++
		case llm.RoleAssistant, llm.RoleTool:
			return false
		}
	}
	return users == 1
}
