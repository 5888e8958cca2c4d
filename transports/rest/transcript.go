package rest

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/transports/httpjson"
	"github.com/troupehq/troupe/transports/overrides"
)

// maxToolOutput is how much of a tool's output a transcript shows.
const maxToolOutput = 4000

// transcript renders the conversation as markdown: each prompt and each
// reply; with ?tools=1 each tool call with its arguments and output, with
// ?thoughts=1 the model's thinking; ?from, ?to, ?last and ?since window
// it (TranscriptOptions).
func (a *API) transcript(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	opts, err := transcriptOptions(r)
	if err != nil {
		httpjson.Error(w, http.StatusBadRequest, err.Error())
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), requestTimeout)
	defer cancel()
	md, err := transcript(ctx, a.cfg.Sessions, a.cfg.Gate, id, opts)
	if err != nil {
		a.sessionError(w, id, err)
		return
	}
	w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write([]byte(md))
}

// Transcript renders session id's conversation (a fork's inherited
// history first) as markdown, tool calls included; sessions.ErrNotFound
// when it has no log. The MCP transport's session.transcript tool shows
// it.
func Transcript(ctx context.Context, s *sessions.Client, id string) (string, error) {
	return transcript(ctx, s, nil, id, TranscriptOptions{Tools: true})
}

// transcript is Transcript with opts; with a gate, what the session's
// response chain has not decided yet is left out.
func transcript(ctx context.Context, s *sessions.Client, gate Gate, id string, opts TranscriptOptions) (string, error) {
	m, err := s.Meta(ctx, id)
	if err != nil {
		return "", err
	}
	var all []shownEvent
	if err := shownConversation(ctx, s, gate, id, func(d *decisions, e event.Event) error {
		all = append(all, shownEvent{d: d, e: e})
		return nil
	}); err != nil {
		return "", err
	}
	var md strings.Builder
	title := cmp.Or(m.Title, id)
	fmt.Fprintf(&md, "# %s\n\n_session %s · %s_\n", title, id, m.Cwd)
	turns, w := opts.window(all)
	if w.sliced() {
		fmt.Fprintf(&md, "\n_Showing turns %d-%d of %d._\n", w.from, w.to, w.total)
	}
	var skipped strings.Builder
	t := &transcriber{opts: opts, calls: map[string]event.ToolStartedPayload{}, shown: map[string]*strings.Builder{}}
	for i, se := range all {
		// Every event feeds the transcriber's state (a prompt queued in
		// an earlier turn, a call started before the window); only the
		// kept turns' are written.
		t.md = &skipped
		if turns[i] {
			t.md = &md
		}
		if err := t.add(se.d, se.e); err != nil {
			return "", err
		}
		skipped.Reset()
	}
	return md.String(), nil
}

type transcriber struct {
	opts TranscriptOptions
	md   *strings.Builder
	// pending is the queue folded as the engine folds it, so a prompt is
	// shown as it was delivered: edits (prompt.updated) applied.
	pending event.Pending
	calls   map[string]event.ToolStartedPayload
	// shown is the text of each message of a log with decisions, rebuilt
	// from its deltas as its clients were shown them (by message id); the
	// other logs' messages are shown as message.completed records them.
	shown map[string]*strings.Builder
}

func (t *transcriber) add(d *decisions, e event.Event) error {
	if d.held(e) || (e.Kind == event.MessageDelta && !d.any(e.SessionID)) {
		return nil // nothing decided in this log: the whole message is in message.completed
	}
	p, err := event.DecodePayload(e.Kind, e.Payload)
	if err != nil {
		return nil // a corrupt entry is left out, not the whole transcript
	}
	dec, decided := d.of(e)
	switch v := p.(type) {
	case *event.MessageDeltaPayload:
		t.delta(v, dec, decided)
	case *event.PromptQueuedPayload, *event.PromptChangedPayload, *event.PromptDeliveredPayload:
		t.pending.Apply(e.Kind, v)
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
		pr, _ := t.pending.Apply(e.Kind, v)
		t.md.WriteString("\n## User\n\n")
		for _, b := range pr.Content {
			if b.Type == "text" {
				t.md.WriteString(b.Text + "\n")
			} else {
				fmt.Fprintf(t.md, "[%s %s]\n", b.Type, b.URI)
			}
		}
	case *event.MessageCompletedPayload:
		text := v.Text
		if b, ok := t.shown[v.MessageID]; ok {
			text = b.String()
			delete(t.shown, v.MessageID)
		}
		if t.opts.Thoughts && strings.TrimSpace(v.Thinking) != "" {
			t.md.WriteString("\n### Thinking\n\n" + strings.TrimSpace(v.Thinking) + "\n")
		}
		if strings.TrimSpace(text) != "" {
			t.md.WriteString("\n## Assistant\n\n" + strings.TrimSpace(text) + "\n")
		}
	case *event.ToolStartedPayload:
		t.calls[v.ToolCallID] = *v
	case *event.ToolCompletedPayload:
		call := t.calls[v.ToolCallID]
		delete(t.calls, v.ToolCallID)
		if decided && dec.Dropped || !t.opts.Tools {
			return nil // its clients were not shown how it ended, or tools are not asked for
		}
		if decided {
			v.Output = shownText(dec, v.Output)
		}
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
	case *event.RunInterruptedPayload:
		// A crash cut the run here: what follows is its resumption (or
		// nothing, when its policy stopped it).
		what := "resumed"
		if v.Policy != "resume" {
			what = "stopped"
		}
		fmt.Fprintf(t.md, "\n_interrupted by a restart; %s_\n", what)
	case *event.RunEndedPayload:
		if v.Error != "" {
			fmt.Fprintf(t.md, "\n_turn ended: %s: %s_\n", v.StopReason, v.Error)
		}
	}
	return nil
}

// delta adds a text delta, as it was shown, to its message's text.
func (t *transcriber) delta(v *event.MessageDeltaPayload, dec overrides.Decision, decided bool) {
	if v.Channel != event.ChannelText {
		return
	}
	b, ok := t.shown[v.MessageID]
	if !ok {
		b = &strings.Builder{}
		t.shown[v.MessageID] = b
	}
	if decided {
		b.WriteString(shownText(dec, v.Text))
		return
	}
	b.WriteString(v.Text)
}

// shownText is the text of a decided update: nothing when dropped, the
// rewritten update's text content, recorded when the rewrite is not an
// update object (shown as recorded, as everywhere).
func shownText(d overrides.Decision, recorded string) string {
	if d.Dropped {
		return ""
	}
	for _, u := range decided(d, 0, nil) {
		body, _ := u.body.(map[string]any)
		if c, ok := body["content"].(map[string]any); ok && c["type"] == "text" {
			s, _ := c["text"].(string)
			return s
		}
		if cs, ok := body["content"].([]any); ok {
			var out strings.Builder
			for _, c := range cs {
				if m, ok := c.(map[string]any); ok {
					if inner, ok := m["content"].(map[string]any); ok && inner["type"] == "text" {
						s, _ := inner["text"].(string)
						out.WriteString(s)
					}
				}
			}
			return out.String()
		}
		return ""
	}
	return recorded
}

// fence wraps text in a code fence longer than any backtick run inside it.
func fence(text, lang string) string {
	ticks := "```"
	for strings.Contains(text, ticks) {
		ticks += "`"
	}
	return ticks + lang + "\n" + strings.TrimRight(text, "\n") + "\n" + ticks + "\n"
}
