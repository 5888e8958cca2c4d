package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/troupehq/troupe/persistence/event"
)

// transcript prints a run for a person (or as NDJSON): the assistant's text
// as it streams, one line per tool call and its outcome, and the end.
type transcript struct {
	w       *bufio.Writer
	json    *json.Encoder
	midLine bool
	thought bool
}

func newTranscript(w io.Writer, asJSON bool) *transcript {
	t := &transcript{w: bufio.NewWriter(w)}
	if asJSON {
		t.json = json.NewEncoder(t.w)
	}
	return t
}

func (t *transcript) header(id string) {
	if t.json == nil {
		fmt.Fprintf(t.w, "session %s\n", id)
		t.w.Flush()
	}
}

func (t *transcript) event(e event.Event) {
	defer t.w.Flush()
	if t.json != nil {
		_ = t.json.Encode(e)
		return
	}
	p, err := event.DecodePayload(e.Kind, e.Payload)
	if err != nil {
		return
	}
	switch p := p.(type) {
	case *event.MessageDeltaPayload:
		switch p.Channel {
		case event.ChannelText:
			t.thought = false
			t.text(p.Text)
		case event.ChannelThinking:
			if !t.thought {
				t.line("(thinking)")
				t.thought = true
			}
		}
	case *event.ToolStartedPayload:
		if !p.AwaitingApproval {
			t.line(fmt.Sprintf("→ %s %s", p.Name, oneLine(p.Arguments, 100)))
		}
	case *event.PermissionResolvedPayload:
		if p.Outcome != "allowed" {
			t.line(fmt.Sprintf("✗ tool call %s denied: %s", p.ToolCallID, p.Reason))
		}
	case *event.ToolCompletedPayload:
		mark := "✓"
		if p.Status != "success" {
			mark = "✗"
		}
		t.line(fmt.Sprintf("%s %s %s (%d ms)%s", mark, p.Name, p.Status, p.DurationMS, firstLine(p.Output, p.Status)))
	case *event.RetryPayload:
		if e.Kind == event.RetryStarted {
			t.line(fmt.Sprintf("(retry %d/%d in %d ms: %s)", p.Attempt, p.MaxAttempts, p.DelayMS, p.Error))
		}
	case *event.RunInterruptedPayload:
		t.line(fmt.Sprintf("(run interrupted by a restart; %s)", p.Policy))
	}
}

func (t *transcript) footer(p event.RunEndedPayload) {
	if t.json != nil {
		return
	}
	if p.Error != "" {
		t.line("error: " + p.Error)
	}
	t.line(fmt.Sprintf("[%s · %d in / %d out tokens]", p.StopReason, p.Usage.Input, p.Usage.Output))
	t.w.Flush()
}

func (t *transcript) text(s string) {
	if s == "" {
		return
	}
	t.w.WriteString(s)
	t.midLine = !strings.HasSuffix(s, "\n")
}

func (t *transcript) line(s string) {
	if t.midLine {
		t.w.WriteByte('\n')
		t.midLine = false
	}
	t.w.WriteString(s)
	t.w.WriteByte('\n')
}

func firstLine(out, status string) string {
	if status == "success" || out == "" {
		return ""
	}
	return ": " + oneLine(out, 120)
}

func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > max {
		return s[:max] + "…"
	}
	return s
}
