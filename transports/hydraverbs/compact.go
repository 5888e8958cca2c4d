package hydraverbs

import (
	"context"
	"fmt"
	"time"

	"github.com/troupehq/troupe/persistence/event"
)

// compact summarises the older conversation once the command's turn has
// ended (a compaction needs the session idle); `status` says when it last
// was. The compaction's own updates tell every client how it went.
func (v *Verbs) compact(ctx context.Context, session, args string) string {
	switch args {
	case "status":
		return v.compactStatus(ctx, session)
	case "":
	default:
		return "/hydra compact: unknown argument `" + args + "`; use `/hydra compact` or `/hydra compact status`."
	}
	from, err := v.next(ctx, session)
	if err != nil {
		return "/hydra compact: not scheduled: " + err.Error()
	}
	v.afterRun(session, from, "compact", func(ctx context.Context) error {
		_, err := v.cfg.Sessions.Compact(ctx, session, "")
		return err
	})
	return "Compaction scheduled: the older conversation is summarised as soon as this turn ends."
}

func (v *Verbs) compactStatus(ctx context.Context, session string) string {
	var n int
	var last event.CompactionPayload
	var at time.Time
	err := v.cfg.Sessions.LoadKind(ctx, session, event.CompactionEnded, func(e event.Event) error {
		var p event.CompactionPayload
		if e.Decode(&p) != nil || p.Aborted || p.Error != "" {
			return nil
		}
		n, last, at = n+1, p, e.RecordedAt
		return nil
	})
	switch {
	case err != nil:
		return "/hydra compact status: the log could not be read: " + err.Error()
	case n == 0:
		return "No compaction yet: the model sees this session's whole conversation."
	}
	return fmt.Sprintf("Compacted %d time(s); last at %s (%s), from %d tokens, keeping the conversation from entry %s on.",
		n, at.UTC().Format(time.RFC3339), last.Reason, last.TokensBefore, last.FirstKeptEntryID)
}
