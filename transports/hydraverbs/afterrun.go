package hydraverbs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/troupehq/troupe/persistence/event"
)

// afterRunTimeout bounds the wait for a command's run to end and the
// action after it.
const afterRunTimeout = 5 * time.Minute

// afterRun runs do once session's run in progress (the command's own) has
// ended: a session is not killed, nor compacted, under the run that asks
// for it. from is past the session's last event when the command ran, so
// the first run.ended from there is the command's. The goroutine is the
// Verbs'; Close ends it.
func (v *Verbs) afterRun(session string, from int64, what string, do func(ctx context.Context) error) {
	v.wg.Add(1)
	go func() {
		defer v.wg.Done()
		ctx, cancel := context.WithTimeout(v.ctx, afterRunTimeout)
		defer cancel()
		err := v.waitRunEnd(ctx, session, from)
		if err == nil {
			err = do(ctx)
		}
		if err != nil && v.ctx.Err() == nil && v.cfg.Log != nil {
			v.cfg.Log.Warn("slash command not carried out", "verb", what, "session", session, "error", err)
		}
	}()
}

func (v *Verbs) waitRunEnd(ctx context.Context, session string, from int64) error {
	st, err := v.cfg.Sessions.Stream(ctx, session, from, false)
	if err != nil {
		return fmt.Errorf("follow the session: %w", err)
	}
	defer st.Close()
	for {
		e, err := st.Next(ctx)
		if err != nil {
			return fmt.Errorf("wait for the command's turn to end: %w", err)
		}
		if e.Kind == event.RunEnded {
			return nil
		}
	}
}

// next is the seq after session's last event.
func (v *Verbs) next(ctx context.Context, session string) (int64, error) {
	last, err := v.cfg.Sessions.LastSeq(ctx, session)
	if err != nil {
		return 0, errors.Join(errors.New("read the session's log"), err)
	}
	return last + 1, nil
}
