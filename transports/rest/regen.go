package rest

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/troupehq/troupe/persistence/event"
)

// Titler asks a session's model (set names it) for a title of
// conversation; actors/sessions/engine implements it.
type Titler func(ctx context.Context, set event.Settings, conversation string) (string, error)

// maxExcerpt bounds the conversation a title is asked for.
const maxExcerpt = 4000

// regenTimeout bounds one title request to the model.
const regenTimeout = 2 * time.Minute

// regen asks for a title in the background and records it as any retitle
// is; the API's Close waits for it. A failure is logged: the client was
// answered 202 already.
func (a *API) regen(id string, m metaModel) {
	a.bg.Add(1)
	go func() {
		defer a.bg.Done()
		ctx, cancel := context.WithTimeout(a.ctx, regenTimeout)
		defer cancel()
		title, err := a.newTitle(ctx, id, m)
		if err == nil {
			_, err = a.cfg.Sessions.SetTitle(ctx, id, title)
		}
		if err != nil && a.ctx.Err() == nil {
			a.cfg.Log.Warn("title not regenerated", "session", id, "error", err)
		}
	}()
}

// Regen has session id's model write it a new title in the background,
// as PATCH {"regen": true} does (hydra's `/hydra title` with no title).
func (a *API) Regen(ctx context.Context, id string) error {
	if a.cfg.Titler == nil {
		return errors.New("this daemon has no model to write titles")
	}
	m, err := a.cfg.Sessions.Meta(ctx, id)
	if err != nil {
		return err
	}
	a.regen(id, metaModel{provider: m.Provider, model: m.Model})
	return nil
}

// metaModel is the session's provider and model, as its snapshot says.
type metaModel struct{ provider, model string }

func (a *API) newTitle(ctx context.Context, id string, m metaModel) (string, error) {
	var excerpt strings.Builder
	prompts := map[string]string{}
	err := a.conversation(ctx, id, func(e event.Event) error {
		if excerpt.Len() >= maxExcerpt {
			return errStop
		}
		switch e.Kind {
		case event.PromptQueued:
			var p event.PromptQueuedPayload
			if e.Decode(&p) == nil {
				var sb strings.Builder
				for _, b := range p.Content {
					sb.WriteString(b.Text)
				}
				prompts[p.MessageID] = sb.String()
			}
		case event.RunStarted:
			var p event.RunStartedPayload
			if e.Decode(&p) == nil {
				excerpt.WriteString("User: " + prompts[p.RunID] + "\n\n")
			}
		case event.MessageCompleted:
			var p event.MessageCompletedPayload
			if e.Decode(&p) == nil && strings.TrimSpace(p.Text) != "" {
				excerpt.WriteString("Assistant: " + strings.TrimSpace(p.Text) + "\n\n")
			}
		}
		return nil
	})
	if err != nil && err != errStop {
		return "", err
	}
	text := excerpt.String()
	if len(text) > maxExcerpt {
		text = text[:maxExcerpt]
	}
	var set event.Settings
	if m.model != "" {
		set.Provider, set.Model = &m.provider, &m.model
	}
	return a.cfg.Titler(ctx, set, strings.ToValidUTF8(text, ""))
}
