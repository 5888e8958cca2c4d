package engine

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/runtime/llm"
	"github.com/troupehq/troupe/runtime/modelconfig"
)

// titlePrompt asks for a title a session picker can show.
const titlePrompt = "You name coding sessions. Reply with a title of at most eight words " +
	"for the conversation the user shows you: no quotes, no trailing period, nothing else."

// maxTitle bounds a title in bytes; a model that rambles is cut.
const maxTitle = 80

// Title asks the model of a session with settings set for a short title of
// conversation (an excerpt of its prompts and replies).
func (e *Engine) Title(ctx context.Context, set event.Settings, conversation string) (string, error) {
	res, err := modelconfig.Resolve(e.config(), e.selection(set), e.opts.Env)
	if err != nil {
		return "", err
	}
	client, err := e.provider(ctx, res)
	if err != nil {
		return "", err
	}
	resp, err := client.Stream(ctx, llm.Request{Model: res.Model.ID, MaxTokens: 64, Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: titlePrompt},
		{Role: llm.RoleUser, Content: conversation},
	}}, func(llm.Chunk) error { return nil })
	if err != nil {
		return "", fmt.Errorf("title from %s/%s: %w", res.Provider, res.Model.ID, err)
	}
	title := strings.TrimSpace(resp.Message.Content)
	if i := strings.IndexByte(title, '\n'); i >= 0 {
		title = strings.TrimSpace(title[:i])
	}
	title = strings.Trim(title, "\"'` ")
	if len(title) > maxTitle {
		n := maxTitle
		for n > 0 && !utf8.RuneStart(title[n]) {
			n--
		}
		title = strings.TrimSpace(title[:n])
	}
	if title == "" {
		return "", fmt.Errorf("title from %s/%s: the model answered nothing", res.Provider, res.Model.ID)
	}
	return title, nil
}
