package rpc

import (
	"encoding/json"
	"testing"

	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/transports/projection/projectiontest"
)

// The projector's table: each log of projectiontest in, the protocol's
// lines out (testdata/projection/NAME.golden), then what the state
// commands answer from the fold. Events up to a case's Resumed are the
// history a process started after the crash folds without showing, as the
// connection does.
func TestProjectCases(t *testing.T) {
	projectiontest.Run(t, func(t *testing.T, c projectiontest.Case) []string {
		f, lines := projectOneByOne(c)
		return append(lines, state(t, f)...)
	})
}

// A batch of events, as a connection that fell behind receives it: the
// deltas of one block merge into one line.
func TestProjectBatch(t *testing.T) {
	c := projectiontest.MultiTool(t)
	f, lines := newTestFold()
	evs := c.Log.Events
	for i := 0; i < len(evs); i++ {
		if evs[i].Kind == event.MessageDelta {
			i = f.deltas(evs, i) - 1
			continue
		}
		f.Apply(evs[i])
	}
	projectiontest.Golden(t, c.Name+"_batched", *lines)
}

func newTestFold() (*fold, *[]string) {
	f := newFold("s1", fixedModels{})
	var lines []string
	f.emit = func(b []byte) { lines = append(lines, string(b)) }
	return f, &lines
}

// projectOneByOne feeds a case's events one at a time, as a live
// connection sees them.
func projectOneByOne(c projectiontest.Case) (*fold, []string) {
	f, lines := newTestFold()
	emit, resumed := f.emit, false
	for _, e := range c.Log.Events {
		if e.Seq <= c.Resumed {
			f.emit = nil
		} else {
			f.emit = emit
			if !resumed {
				resumed = true
				f.resume()
			}
		}
		f.Apply(e)
	}
	return f, *lines
}

// state is what get_messages, get_fork_messages and the counters of
// get_state and get_session_stats read from the fold, one line each.
func state(t *testing.T, f *fold) []string {
	t.Helper()
	line := func(name string, v any) string {
		b, err := marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return "# " + name + " " + string(b)
	}
	counters := map[string]any{
		"title": f.Title, "cwd": f.Cwd, "running": f.runID(), "compacting": f.Compaction != nil, "pending": f.Pending.Len(),
		"stats": f.stats, "usage": f.Usage, "lastText": f.lastText, "lastSeq": f.LastSeq,
	}
	set, err := json.Marshal(f.Settings)
	if err != nil {
		t.Fatal(err)
	}
	return []string{line("messages", nonNil(f.messages)), line("forks", forkMessages(f.Forks)), line("state", counters), "# settings " + string(set)}
}

// A fork shows its own events on top of its ancestors' history: the
// parent's log up to the fork point, folded quietly and left idle (the
// parent's run was cut there), then the fork's own prompt, live.
func TestProjectFork(t *testing.T) {
	parent := projectiontest.MultiTool(t).Log.Events[:20] // in the middle of the run
	f, lines := newTestFold()
	f.SessionID = "s2"
	emit := f.emit
	f.emit = nil
	for _, e := range parent {
		f.Apply(e)
	}
	f.inherited()
	f.emit = emit
	fork := projectiontest.NewLog(t, "s2").
		Add(event.SessionCreated, event.CreatedPayload{Cwd: "/fork", ParentSessionID: "s1", ForkedFromSeq: 20}).
		Prompt("m9", "and now?").
		Add(event.StepStarted, event.StepStartedPayload{RunID: "m9", Step: 1, MessageCount: 6, MessageID: "a9"}).
		Deltas("m9", "a9", event.ChannelText, "Forked.").
		Add(event.MessageCompleted, event.MessageCompletedPayload{RunID: "m9", MessageID: "a9", Text: "Forked."}).
		Add(event.StepEnded, event.StepEndedPayload{RunID: "m9", Step: 1, MessageID: "a9", FinishReason: "stop"}).
		Add(event.RunEnded, event.RunEndedPayload{RunID: "m9", StopReason: "end_turn"})
	f.resume()
	for _, e := range fork.Events {
		f.Apply(e)
	}
	projectiontest.Golden(t, "fork", append(*lines, state(t, f)...))
}
