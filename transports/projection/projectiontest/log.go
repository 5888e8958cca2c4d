// Package projectiontest holds what the projection kit's table tests
// share: a builder of canonical event logs, the logs every protocol's
// projector is tested on (each modelled on a log the engine wrote), and
// golden files of the lines a projector writes for them.
//
// It is for tests only; nothing outside _test.go files imports it.
package projectiontest

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/troupehq/troupe/persistence/event"
)

// T0 is when every built log starts; event n is recorded n ms later, so
// the timestamps a projector copies out are stable.
var T0 = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)

// Log builds one session's events with seqs from 1.
type Log struct {
	tb        testing.TB
	SessionID string
	Events    []event.Event
	index     map[string]int // the next delta index of each message
}

// NewLog starts an empty log of session id.
func NewLog(tb testing.TB, id string) *Log {
	return &Log{tb: tb, SessionID: id, index: map[string]int{}}
}

// Add appends one event of kind with payload p.
func (l *Log) Add(kind event.Kind, p any) *Log {
	l.tb.Helper()
	raw, err := json.Marshal(p)
	if err != nil {
		l.tb.Fatalf("marshal %s: %v", kind, err)
	}
	seq := int64(len(l.Events) + 1)
	l.Events = append(l.Events, event.Event{SessionID: l.SessionID, Seq: seq, Kind: kind, Payload: raw,
		RecordedAt: T0.Add(time.Duration(seq) * time.Millisecond)})
	return l
}

// Deltas appends one message.delta per piece of text, on one channel.
func (l *Log) Deltas(run, msg, channel string, pieces ...string) *Log {
	l.tb.Helper()
	for _, s := range pieces {
		l.delta(event.MessageDeltaPayload{RunID: run, MessageID: msg, Channel: channel, Text: s})
	}
	return l
}

// CallDeltas appends the deltas of one tool call's arguments: the call
// announced (no text), then each piece, as the engine streams them.
func (l *Log) CallDeltas(run, msg, id, name string, pieces ...string) *Log {
	l.tb.Helper()
	l.delta(event.MessageDeltaPayload{RunID: run, MessageID: msg, Channel: event.ChannelToolCallArgs, ToolCallID: id, ToolName: name})
	for _, s := range pieces {
		l.delta(event.MessageDeltaPayload{RunID: run, MessageID: msg, Channel: event.ChannelToolCallArgs, Text: s, ToolCallID: id, ToolName: name})
	}
	return l
}

// delta numbers a delta within its message, as the engine does.
func (l *Log) delta(p event.MessageDeltaPayload) {
	l.tb.Helper()
	p.Index = l.index[p.MessageID]
	l.index[p.MessageID]++
	l.Add(event.MessageDelta, p)
}

// Prompt queues a prompt and starts its run, as the queue does when idle.
func (l *Log) Prompt(id, text string) *Log {
	l.tb.Helper()
	l.Add(event.PromptQueued, event.PromptQueuedPayload{MessageID: id, Content: []event.Block{{Type: "text", Text: text}}, Delivery: "prompt", Client: "test"})
	return l.Add(event.RunStarted, event.RunStartedPayload{RunID: id})
}

// Seq is the seq of the last event added.
func (l *Log) Seq() int64 { return int64(len(l.Events)) }
