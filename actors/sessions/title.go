package sessions

import (
	"context"

	"github.com/troupehq/troupe/persistence/event"
)

// SetTitle records a new title (session.settings_changed) and returns its seq.
func (c *Client) SetTitle(ctx context.Context, id, title string) (int64, error) {
	return c.SetSettings(ctx, id, event.Settings{Title: &title})
}
