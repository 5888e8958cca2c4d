package terminal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Initialize opens the ACP conversation.
func (c *Client) Initialize(ctx context.Context) error {
	params := map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{},
		"clientInfo": map[string]any{"name": c.cfg.Name, "version": c.cfg.Version}}
	if err := c.call(ctx, "initialize", params, nil); err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	return nil
}

// AttachOptions choose what an attach replays and whether it may change
// anything.
type AttachOptions struct {
	SessionID string
	// HistoryPolicy is session/attach's: full, pending_only, none or
	// after_message.
	HistoryPolicy  string
	AfterMessageID string
	Readonly       bool
}

// Attached is the daemon's answer to the attach.
type Attached struct {
	SessionID        string            `json:"sessionId"`
	ClientID         string            `json:"clientId"`
	ConnectedClients []json.RawMessage `json:"connectedClients"`
	HistoryPolicy    string            `json:"historyPolicy"`
	Replayed         int               `json:"replayed"`
	Meta             struct {
		Hydra struct {
			Status string `json:"status"`
			Busy   bool   `json:"busy"`
			Title  string `json:"title"`
		} `json:"hydra-acp"`
	} `json:"_meta"`
}

// AttachParams are session/attach's params for o, from the client name
// and version: for any client of the daemon, this one or another.
func AttachParams(o AttachOptions, name, version string) map[string]any {
	params := map[string]any{"sessionId": o.SessionID, "historyPolicy": o.HistoryPolicy,
		"clientInfo": map[string]any{"name": name, "version": version}}
	if o.AfterMessageID != "" {
		params["afterMessageId"] = o.AfterMessageID
	}
	if o.Readonly {
		params["_meta"] = map[string]any{"hydra-acp": map[string]any{"readonly": true}}
	}
	return params
}

// Open attaches to a session and shows what the daemon replays.
func (c *Client) Open(ctx context.Context, o AttachOptions) (Attached, error) {
	c.sessionID, c.readonly = o.SessionID, o.Readonly
	var a Attached
	// The daemon's error names the session: no wrapping.
	if err := c.call(ctx, "session/attach", AttachParams(o, c.cfg.Name, c.cfg.Version), &a); err != nil {
		return a, err
	}
	c.r.SetRunning(a.Meta.Hydra.Busy)
	c.r.SetClientID(a.ClientID)
	return a, nil
}

// Watch shows the session live until the person detaches (Ctrl-C
// twice, or once while nothing runs), the session is stopped, the daemon
// closes the connection or ctx ends. A detach or a stop is no error.
func (c *Client) Watch(ctx context.Context) error {
	for !c.detached && !c.r.Closed() {
		if err := c.step(ctx); err != nil {
			return err
		}
	}
	return nil
}

// Attach is Open, a note saying how to leave, then Watch.
func (c *Client) Attach(ctx context.Context, o AttachOptions) error {
	a, err := c.Open(ctx, o)
	switch {
	case errors.Is(err, errDetached):
		// Ctrl-C during the replay, before the attach's answer: the
		// person left, which is no error.
	case err != nil:
		return err
	default:
		c.r.Note(attachedNote(a, o.Readonly))
		if err := c.Watch(ctx); err != nil {
			return err
		}
	}
	if c.detached {
		c.r.Note("detached")
	}
	return c.r.Err()
}

func attachedNote(a Attached, readonly bool) string {
	var b strings.Builder
	b.WriteString("attached to " + a.SessionID)
	if a.Meta.Hydra.Title != "" {
		b.WriteString(" \"" + a.Meta.Hydra.Title + "\"")
	}
	status := a.Meta.Hydra.Status
	if a.Meta.Hydra.Busy {
		status += ", busy"
	}
	if readonly {
		status += ", read-only"
	}
	clients := "clients"
	if len(a.ConnectedClients) == 1 {
		clients = "client"
	}
	fmt.Fprintf(&b, " (%s, %d %s)", status, len(a.ConnectedClients), clients)
	if readonly {
		b.WriteString("; Ctrl-C detaches")
	} else {
		b.WriteString("; Ctrl-C cancels the running turn, twice detaches")
	}
	return b.String()
}

// Prompt sends a prompt to a session attached on this connection (Open)
// and renders its turn to the end, answering permission requests with
// keys; Ctrl-C cancels it, twice abandons it. It returns the stop reason.
// `troupe session prompt` and attach share this path.
func (c *Client) Prompt(ctx context.Context, text string) (string, error) {
	params := map[string]any{"sessionId": c.sessionID, "prompt": []any{map[string]any{"type": "text", "text": text}}}
	id, err := c.request("session/prompt", params)
	if err != nil {
		return "", err
	}
	c.r.PromptSent()
	res, err := c.await(ctx, id)
	if errors.Is(err, errDetached) {
		c.r.TurnEnded("cancelled")
		return "cancelled", nil
	}
	if err != nil {
		return "", err
	}
	if res.Error != nil {
		c.r.TurnEnded("error")
		return "", fmt.Errorf("prompt: %w", res.Error)
	}
	var out struct {
		StopReason string `json:"stopReason"`
	}
	if err := json.Unmarshal(res.Result, &out); err != nil {
		return "", fmt.Errorf("prompt answer: %w", err)
	}
	c.r.TurnEnded(out.StopReason)
	return out.StopReason, c.r.Err()
}

// PromptTurn is `troupe session prompt`'s streaming: it opens the
// conversation, attaches to the session replaying nothing, and renders
// one prompt's turn to its end (see Prompt). The connection is closed
// when it returns.
func PromptTurn(ctx context.Context, cfg ClientConfig, sessionID, text string) (string, error) {
	c := NewClient(cfg)
	defer c.Close()
	if err := c.Initialize(ctx); err != nil {
		return "", err
	}
	if _, err := c.Open(ctx, AttachOptions{SessionID: sessionID, HistoryPolicy: "none"}); err != nil {
		return "", err
	}
	return c.Prompt(ctx, text)
}
