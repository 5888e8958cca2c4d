package rest

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/persistence/event"
)

// maxToolOutput is how much of a tool's output a transcript shows.
const maxToolOutput = 4000

// transcript renders the conversation as markdown: each prompt, each
// reply, each tool call with its arguments and output.
func (a *API) transcript(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	ctx, cancel := context.WithTimeout(r.Context(), requestTimeout)
	defer cancel()
	md, err := Transcript(ctx, a.cfg.Sessions, id)
	if err != nil {
		a.sessionError(w, id, err)
		return
	}
	w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write([]byte(md))
}

// Transcript renders session id's conversation (a fork's inherited
// history first) as markdown; sessions.ErrNotFound when it has no log.
// The MCP transport's session.transcript tool shows the same.
func Transcript(ctx context.Context, s *sessions.Client, id string) (string, error) {
	m, err := s.Meta(ctx, id)
	if err != nil {
		return "", err
	}
	var md strings.Builder
	title := m.Title
	if title == "" {
		title = id
	}
	fmt.Fprintf(&md, "# %s\n\n_session %s · %s_\n", title, id, m.Cwd)
	t := &transcriber{md: &md, prompts: map[string][]event.Block{}, calls: map[string]event.ToolStartedPayload{}}
	if err := conversation(ctx, s, id, t.add); err != nil {
		return "", err
	}
	return md.String(), nil
}

type transcriber struct {
	md      *strings.Builder
	prompts map[string][]event.Block
	calls   map[string]event.ToolStartedPayload
}

func (t *transcriber) add(e event.Event) error {
	p, err := event.DecodePayload(e.Kind, e.Payload)
	if err != nil {
		return nil // a corrupt entry is left out, not the whole transcript
	}
	switch v := p.(type) {
	case *event.PromptQueuedPayload:
		t.prompts[v.MessageID] = v.Content
	case *event.HistoryImportedPayload:
		for _, msg := range v.Messages {
			switch msg.Role {
			case "user":
				t.md.WriteString("\n## User\n\n" + strings.TrimSpace(msg.Content) + "\n")
			case "assistant":
				t.md.WriteString("\n## Assistant\n\n" + strings.TrimSpace(msg.Content) + "\n")
			}
		}
	case *event.RunStartedPayload:
		t.md.WriteString("\n## User\n\n")
		for _, b := range t.prompts[v.RunID] {
			if b.Type == "text" {
				t.md.WriteString(b.Text + "\n")
			} else {
				fmt.Fprintf(t.md, "[%s %s]\n", b.Type, b.URI)
			}
		}
		delete(t.prompts, v.RunID)
	case *event.MessageCompletedPayload:
		if strings.TrimSpace(v.Text) != "" {
			t.md.WriteString("\n## Assistant\n\n" + strings.TrimSpace(v.Text) + "\n")
		}
	case *event.ToolStartedPayload:
		t.calls[v.ToolCallID] = *v
	case *event.ToolCompletedPayload:
		call := t.calls[v.ToolCallID]
		delete(t.calls, v.ToolCallID)
		fmt.Fprintf(t.md, "\n### Tool `%s` (%s)\n\n", v.Name, v.Status)
		if call.Arguments != "" {
			t.md.WriteString(fence(call.Arguments, "json"))
		}
		out := v.Output
		if len(out) > maxToolOutput {
			out = out[:maxToolOutput] + "\n… (cut)"
		}
		if out != "" {
			t.md.WriteString("\n" + fence(out, ""))
		}
	case *event.RunEndedPayload:
		if v.Error != "" {
			fmt.Fprintf(t.md, "\n_turn ended: %s: %s_\n", v.StopReason, v.Error)
		}
	}
	return nil
}

// fence wraps text in a code fence longer than any backtick run inside it.
func fence(text, lang string) string {
	ticks := "```"
	for strings.Contains(text, ticks) {
		ticks += "`"
	}
	return ticks + lang + "\n" + strings.TrimRight(text, "\n") + "\n" + ticks + "\n"
}
