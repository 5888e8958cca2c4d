package sessions

import (
	"context"
	"fmt"

	"github.com/troupehq/troupe/persistence/event"
)

// inheritedSettings are session parent's settings as they stood at seq
// (its session.created's and the changes after, up to seq), its title
// left out: a fork runs on the model and mode its parent ran on where it
// forked, and records them, so it lists with its model from the start.
func (c *Client) inheritedSettings(ctx context.Context, parent string, seq int64) (event.Settings, error) {
	var set event.Settings
	err := c.store.LoadRange(ctx, parent, 1, seq, func(e event.Event) error {
		switch e.Kind {
		case event.SessionCreated:
			var p event.CreatedPayload
			if err := e.Decode(&p); err != nil {
				return err
			}
			set = set.Merge(p.Settings)
		case event.SessionSettingsChanged:
			var p event.Settings
			if err := e.Decode(&p); err != nil {
				return err
			}
			set = set.Merge(p)
		}
		return nil
	})
	if err != nil {
		return event.Settings{}, fmt.Errorf("the settings of %s to inherit: %w", parent, err)
	}
	set.Title = nil
	return set, nil
}
