package scale

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/troupehq/troupe/persistence"
	"github.com/troupehq/troupe/persistence/event"
)

// Expect is the shape of work every session's log must show.
type Expect struct {
	Prompts, Deltas int
}

// kinds is how many events of each kind a complete log holds. Every answer
// is a step; the first also calls the tool, which adds a step. The first
// prompt titles the (untitled) session: one settings change.
func (x Expect) kinds() map[event.Kind]int {
	steps := x.Prompts + 1
	want := map[event.Kind]int{
		event.SessionCreated:   1,
		event.PromptQueued:     x.Prompts,
		event.RunStarted:       x.Prompts,
		event.StepStarted:      steps,
		event.MessageDelta:     steps * x.Deltas, // text; the tool call's are counted apart
		event.MessageCompleted: steps,
		event.StepEnded:        steps,
		event.ToolStarted:      1,
		event.ToolCompleted:    1,
		event.RunEnded:         x.Prompts,
	}
	if x.Prompts > 0 {
		want[event.SessionSettingsChanged] = 1
	}
	return want
}

// Verify loads each session's log from the store and checks it is
// complete: seqs contiguous from 1 up to the session row's last_seq, the
// expected number of events of each kind, every answer's text whole, the
// tool call a success, every run ended end_turn. It returns the number of
// events, or an error naming the first three incomplete sessions.
func Verify(ctx context.Context, store *persistence.Store, ids []string, x Expect) (int64, error) {
	var total int64
	var bad []error
	for _, id := range ids {
		n, err := verifySession(ctx, store, id, x)
		total += n
		if err != nil {
			bad = append(bad, err)
		}
	}
	if len(bad) > 0 {
		shown := bad[:min(len(bad), 3)]
		return total, fmt.Errorf("%d of %d session logs incomplete: %w", len(bad), len(ids), errors.Join(shown...))
	}
	return total, nil
}

func verifySession(ctx context.Context, store *persistence.Store, id string, x Expect) (int64, error) {
	meta, err := store.Session(ctx, id)
	if err != nil {
		return 0, fmt.Errorf("session %s: %w", id, err)
	}
	var c logCheck
	c.text = map[string]int{}
	if err := store.Load(ctx, id, 1, c.add); err != nil {
		return c.n, fmt.Errorf("session %s: load: %w", id, err)
	}
	if c.n != meta.LastSeq {
		return c.n, fmt.Errorf("session %s: %d events, last_seq %d", id, c.n, meta.LastSeq)
	}
	if c.args != toolArgs {
		return c.n, fmt.Errorf("session %s: tool call arguments streamed as %q, want %q", id, c.args, toolArgs)
	}
	want := x.kinds()
	if !maps.Equal(c.kinds, want) {
		return c.n, fmt.Errorf("session %s: events by kind %s, want %s", id, kindList(c.kinds), kindList(want))
	}
	if c.problem != "" {
		return c.n, fmt.Errorf("session %s: %s", id, c.problem)
	}
	if len(c.text) != x.Prompts+1 {
		return c.n, fmt.Errorf("session %s: %d messages streamed text, want %d", id, len(c.text), x.Prompts+1)
	}
	for msg, n := range c.text {
		if n != x.Deltas {
			return c.n, fmt.Errorf("session %s: message %s streamed %d text deltas, want %d", id, msg, n, x.Deltas)
		}
	}
	return c.n, nil
}

// logCheck folds one session's events as they are loaded.
type logCheck struct {
	n       int64
	kinds   map[event.Kind]int
	text    map[string]int // text deltas by message id
	args    string         // the tool call's arguments, as streamed
	problem string         // the first one seen
}

func (c *logCheck) add(e event.Event) error {
	c.n++
	if e.Seq != c.n {
		return fmt.Errorf("seq %d where %d belongs", e.Seq, c.n)
	}
	if c.kinds == nil {
		c.kinds = map[event.Kind]int{}
	}
	p, err := event.DecodePayload(e.Kind, e.Payload)
	if err != nil {
		return err
	}
	switch p := p.(type) {
	case *event.MessageDeltaPayload:
		switch p.Channel {
		case event.ChannelText:
			c.text[p.MessageID]++
		case event.ChannelToolCallArgs:
			c.args += p.Text
			return nil // not among the kinds counted
		default:
			c.note("delta on channel %q", p.Channel)
		}
	case *event.MessageCompletedPayload:
		if want := strings.Repeat(Token, c.text[p.MessageID]); p.Text != want {
			c.note("message %s completed with %d bytes of text, its deltas %d", p.MessageID, len(p.Text), len(want))
		}
	case *event.ToolCompletedPayload:
		if p.Status != event.ToolSuccess {
			c.note("tool call %s ended %s: %s", p.ToolCallID, p.Status, p.Output)
		}
	case *event.RunEndedPayload:
		if p.StopReason != event.StopEndTurn {
			c.note("run %s ended %s: %s", p.RunID, p.StopReason, p.Error)
		}
	}
	c.kinds[e.Kind]++
	return nil
}

func (c *logCheck) note(format string, args ...any) {
	if c.problem == "" {
		c.problem = fmt.Sprintf(format, args...)
	}
}

func kindList(m map[event.Kind]int) string {
	keys := slices.Sorted(maps.Keys(m))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%d", k, m[k])
	}
	return strings.Join(parts, " ")
}
