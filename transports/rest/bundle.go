package rest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/persistence/event"
)

// bundleVersion is the bundle format this daemon writes and reads.
const bundleVersion = 1

// bundle is an exported session: its meta, the payload that created it,
// and its whole conversation as canonical events (a fork's inherited
// history first), so that an import rebuilds the same log.
type bundle struct {
	Version    int             `json:"version"`
	LineageID  string          `json:"lineageId"`
	SessionID  string          `json:"sessionId"`
	ExportedAt time.Time       `json:"exportedAt"`
	Meta       bundleMeta      `json:"meta"`
	Created    json.RawMessage `json:"created"`
	History    []bundleEvent   `json:"history"`
}

type bundleMeta struct {
	AgentID             string    `json:"agentId"`
	Title               string    `json:"title"`
	Cwd                 string    `json:"cwd"`
	CurrentModel        string    `json:"currentModel,omitempty"`
	ForkedFromSessionID string    `json:"forkedFromSessionId,omitempty"`
	CreatedAt           time.Time `json:"createdAt"`
	UpdatedAt           time.Time `json:"updatedAt"`
}

type bundleEvent struct {
	Seq        int64           `json:"seq"`
	RecordedAt time.Time       `json:"recordedAt"`
	Kind       event.Kind      `json:"kind"`
	Payload    json.RawMessage `json:"payload"`
}

var errStop = errors.New("stop")

// created reads session id's session.created payload.
func (a *API) created(ctx context.Context, id string) (event.CreatedPayload, error) {
	var c event.CreatedPayload
	found := false
	err := a.cfg.Sessions.Load(ctx, id, 1, func(e event.Event) error {
		if e.Kind != event.SessionCreated {
			return fmt.Errorf("session %s starts with %s, not %s", id, e.Kind, event.SessionCreated)
		}
		found = true
		if err := e.Decode(&c); err != nil {
			return err
		}
		return errStop
	})
	if err != nil && !errors.Is(err, errStop) {
		return c, err
	}
	if !found {
		return c, fmt.Errorf("%w: %s", sessions.ErrNotFound, id)
	}
	return c, nil
}

// lineage is a session's lineage id: its bundle's when imported, else its own id.
func lineage(id string, c event.CreatedPayload) string {
	if c.LineageID != "" {
		return c.LineageID
	}
	return id
}

// exportBundle assembles session id's bundle from the store.
func (a *API) exportBundle(ctx context.Context, id string) (bundle, error) {
	m, err := a.cfg.Sessions.Meta(ctx, id)
	if err != nil {
		return bundle{}, err
	}
	c, err := a.created(ctx, id)
	if err != nil {
		return bundle{}, err
	}
	inherited, err := a.cfg.Sessions.Inherited(ctx, m)
	if err != nil {
		return bundle{}, err
	}
	b := bundle{Version: bundleVersion, LineageID: lineage(id, c), SessionID: id, ExportedAt: time.Now().UTC(),
		Meta: bundleMeta{AgentID: AgentID, Title: m.Title, Cwd: m.Cwd, ForkedFromSessionID: m.ParentID,
			CreatedAt: m.CreatedAt, UpdatedAt: m.UpdatedAt}}
	if m.Model != "" {
		b.Meta.CurrentModel = m.Provider + "/" + m.Model
	}
	if b.Created, err = json.Marshal(c); err != nil {
		return bundle{}, err
	}
	add := func(e event.Event) error {
		if e.Kind != event.SessionCreated {
			b.History = append(b.History, bundleEvent{Seq: e.Seq, RecordedAt: e.RecordedAt, Kind: e.Kind, Payload: e.Payload})
		}
		return nil
	}
	for _, e := range inherited {
		_ = add(e)
	}
	if err := a.cfg.Sessions.Load(ctx, id, 1, add); err != nil {
		return bundle{}, err
	}
	return b, nil
}

// check validates a decoded bundle: its version, lineage, created payload
// and every event's kind and payload.
func (b *bundle) check() (event.CreatedPayload, error) {
	var c event.CreatedPayload
	if b.Version != bundleVersion {
		return c, fmt.Errorf("version %d is not supported (want %d)", b.Version, bundleVersion)
	}
	if b.LineageID == "" {
		return c, errors.New("lineageId is missing")
	}
	if len(b.Created) == 0 {
		return c, errors.New("created is missing")
	}
	if err := json.Unmarshal(b.Created, &c); err != nil {
		return c, fmt.Errorf("created: %v", err)
	}
	for i, e := range b.History {
		if e.Kind == event.SessionCreated {
			return c, fmt.Errorf("history[%d]: %s may only open a log", i, e.Kind)
		}
		if _, err := event.DecodePayload(e.Kind, e.Payload); err != nil {
			return c, fmt.Errorf("history[%d]: %v", i, err)
		}
	}
	return c, nil
}
