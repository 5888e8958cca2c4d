package rest

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/persistence/event"
)

// bundleVersion is the bundle format the protocol defines.
const bundleVersion = 1

// bundle is an exported session in the protocol's shape: the session's
// record and its history as session/update entries, which any hydra
// client reads. troupe adds its canonical log under "troupe", so that a
// troupe import rebuilds the same log; a bundle without it (from another
// daemon) is imported as its conversation (history.imported).
type bundle struct {
	Version       int            `json:"version"`
	ExportedAt    time.Time      `json:"exportedAt"`
	ExportedFrom  exportedFrom   `json:"exportedFrom"`
	Session       bundleSession  `json:"session"`
	History       []historyEntry `json:"history"`
	PromptHistory []string       `json:"promptHistory,omitempty"`
	Troupe        *troupeLog     `json:"troupe,omitempty"`
	// Redacted lists what the export replaced with "<redacted>": the
	// values of credentials (MCP servers' env and headers, the daemon's
	// capability tokens among them; a URL's password and query), as paths
	// into the bundle. A bundle never carries them.
	Redacted []string `json:"redacted,omitempty"`
}

type exportedFrom struct {
	HydraVersion string `json:"hydraVersion"`
	Machine      string `json:"machine"`
}

type bundleSession struct {
	SessionID           string `json:"sessionId"`
	LineageID           string `json:"lineageId"`
	AgentID             string `json:"agentId"`
	Cwd                 string `json:"cwd"`
	Title               string `json:"title,omitempty"`
	CurrentModel        string `json:"currentModel,omitempty"`
	ForkedFromSessionID string `json:"forkedFromSessionId,omitempty"`
	// Interactive is hydra's tristate, absent while undecided;
	// OriginatingClient names the client that opened the session. An
	// import reads neither: troupe.created says what the session was.
	Interactive       *bool              `json:"interactive,omitempty"`
	OriginatingClient *originatingClient `json:"originatingClient,omitempty"`
	CreatedAt         string             `json:"createdAt"`
	UpdatedAt         string             `json:"updatedAt"`
}

// originatingClient is hydra's record of the client that opened a session.
type originatingClient struct {
	Name string `json:"name"`
}

// historyEntry is one line of a hydra history: a notification and when
// it was recorded (unix milliseconds).
type historyEntry struct {
	Method     string          `json:"method"`
	Params     json.RawMessage `json:"params"`
	RecordedAt int64           `json:"recordedAt"`
}

// troupeLog is the session.created payload and every later event, a
// fork's inherited ones first.
type troupeLog struct {
	Created json.RawMessage `json:"created"`
	Events  []bundleEvent   `json:"events"`
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
	machine, _ := os.Hostname()
	b := bundle{Version: bundleVersion, ExportedAt: time.Now().UTC(),
		ExportedFrom: exportedFrom{HydraVersion: "troupe " + a.cfg.Version, Machine: machine},
		Session: bundleSession{SessionID: id, LineageID: lineage(id, c), AgentID: cmp.Or(m.Agent, AgentID), Cwd: m.Cwd, Title: m.Title,
			ForkedFromSessionID: m.ParentID, CreatedAt: m.CreatedAt.Format(time.RFC3339Nano), UpdatedAt: m.UpdatedAt.Format(time.RFC3339Nano)},
		History: []historyEntry{}, Troupe: &troupeLog{Events: []bundleEvent{}}}
	if m.Model != "" {
		b.Session.CurrentModel = m.Provider + "/" + m.Model
	}
	b.Session.Interactive = m.Interactive
	if c.OriginClient != "" {
		b.Session.OriginatingClient = &originatingClient{Name: c.OriginClient}
	}
	var red redaction
	if c.MCPServers, err = red.servers(c.MCPServers, "troupe.created.mcp_servers"); err != nil {
		return bundle{}, err
	}
	if b.Troupe.Created, err = json.Marshal(c); err != nil {
		return bundle{}, err
	}
	var proj *projector
	typedAt := map[string]int{} // message id -> its promptHistory index
	err = shownConversation(ctx, a.cfg.Sessions, a.cfg.Gate, id, func(d *decisions, e event.Event) error {
		if proj == nil {
			proj = newProjector(id, a.cfg.Models, d)
		}
		if e.Kind == event.SessionCreated {
			return nil
		}
		if id, text, ok := typed(e); ok {
			if i, edit := typedAt[id]; edit && e.Kind == event.PromptUpdated {
				b.PromptHistory[i] = text // the prompt as it was sent, not as first typed
			} else if e.Kind == event.PromptQueued {
				typedAt[id] = len(b.PromptHistory)
				b.PromptHistory = append(b.PromptHistory, text)
			}
		}
		payload := red.scrub(e.Payload, fmt.Sprintf("troupe.events[%d].payload", len(b.Troupe.Events)))
		b.Troupe.Events = append(b.Troupe.Events, bundleEvent{Seq: e.Seq, RecordedAt: e.RecordedAt, Kind: e.Kind, Payload: payload})
		for _, u := range proj.project(e) {
			params, err := json.Marshal(historyParams{SessionID: id, Update: u.body})
			if err != nil {
				return err
			}
			params = red.scrub(params, fmt.Sprintf("history[%d].params", len(b.History)))
			b.History = append(b.History, historyEntry{Method: "session/update", Params: params, RecordedAt: e.RecordedAt.UnixMilli()})
		}
		return nil
	})
	b.Redacted = red.paths
	return b, err
}

// typed is the message id and text of a prompt.queued event's prompt, or
// of a prompt.updated event's edit of it while it waited, for the bundle's
// promptHistory (hydra's composer history: each prompt sent, in order, a
// fork's inherited ones first, as last edited); false for any other event
// and a prompt with no text.
func typed(e event.Event) (string, string, bool) {
	var id string
	var content []event.Block
	switch e.Kind {
	case event.PromptQueued:
		var p event.PromptQueuedPayload
		if e.Decode(&p) != nil {
			return "", "", false
		}
		id, content = p.MessageID, p.Content
	case event.PromptUpdated:
		var p event.PromptChangedPayload
		if e.Decode(&p) != nil {
			return "", "", false
		}
		id, content = p.MessageID, p.Content
	default:
		return "", "", false
	}
	var sb strings.Builder
	for _, b := range content {
		if b.Type == "text" {
			sb.WriteString(b.Text)
		}
	}
	return id, sb.String(), sb.Len() > 0
}

// check validates a decoded bundle. It returns the payload the imported
// session is created with.
func (b *bundle) check() (event.CreatedPayload, error) {
	var c event.CreatedPayload
	if b.Version != bundleVersion {
		return c, fmt.Errorf("version %d is not supported (want %d)", b.Version, bundleVersion)
	}
	if b.Session.LineageID == "" || b.Session.SessionID == "" {
		return c, errors.New("session.lineageId and session.sessionId are required")
	}
	for i, h := range b.History {
		if h.Method == "" {
			return c, fmt.Errorf("history[%d]: method is missing", i)
		}
	}
	if b.Troupe == nil {
		c.Cwd, c.Title = b.Session.Cwd, b.Session.Title
		return c, nil
	}
	if len(b.Troupe.Created) == 0 {
		return c, errors.New("troupe.created is missing")
	}
	if err := json.Unmarshal(b.Troupe.Created, &c); err != nil {
		return c, fmt.Errorf("troupe.created: %v", err)
	}
	for i, e := range b.Troupe.Events {
		if e.Kind == event.SessionCreated {
			return c, fmt.Errorf("troupe.events[%d]: %s may only open a log", i, e.Kind)
		}
		if _, err := event.DecodePayload(e.Kind, e.Payload); err != nil {
			return c, fmt.Errorf("troupe.events[%d]: %v", i, err)
		}
	}
	return c, nil
}
