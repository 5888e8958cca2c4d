package sessions

import (
	"context"
	"time"

	"github.com/troupehq/troupe/persistence/event"
)

// CompactionInfo is what a session's log says of its compaction.
type CompactionInfo struct {
	// InFlight: a compaction started and has not ended (a live session's
	// log; a crashed process may leave one open).
	InFlight bool
	// StartedAt is when the open compaction started.
	StartedAt time.Time
	// ContextUsed is the context the last step used (its input, cache
	// read and output), 0 when no step ended since the last compaction.
	ContextUsed int64
	// Compactions is how many compactions ended well.
	Compactions int
}

// Compaction reads session id's compaction state from the store: its
// compaction events and step ends only (one indexed scan, not the log).
func (c *Client) Compaction(ctx context.Context, id string) (CompactionInfo, error) {
	var info CompactionInfo
	kinds := []event.Kind{event.StepEnded, event.CompactionStarted, event.CompactionEnded}
	err := c.store.SearchCandidates(ctx, "", kinds, []string{id}, func(e event.Event) error {
		switch e.Kind {
		case event.CompactionStarted:
			info.InFlight, info.StartedAt = true, e.RecordedAt
		case event.CompactionEnded:
			info.InFlight, info.StartedAt = false, time.Time{}
			var p event.CompactionPayload
			if e.Decode(&p) == nil && p.Error == "" && !p.Aborted {
				info.Compactions++
				info.ContextUsed = 0
			}
		case event.StepEnded:
			var p event.StepEndedPayload
			if e.Decode(&p) == nil {
				info.ContextUsed = p.Usage.Input + p.Usage.CacheRead + p.Usage.Output
			}
		}
		return nil
	})
	return info, err
}
