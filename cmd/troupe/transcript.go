package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/troupehq/troupe/persistence/event"
)

// transcript prints a run for a person (or as NDJSON): the assistant's text
// as it streams, one line per tool call and its outcome, and the end. It is
// a projection of the events alone. Errors go to errw (stderr), never to
// the transcript.
type transcript struct {
	w       *bufio.Writer
	errw    io.Writer
	json    *json.Encoder
	midLine bool
	thought bool
	calls   map[string]event.ToolStartedPayload
	// denied are the calls denied because no one could be asked, in order.
	denied []event.ToolStartedPayload
}

func newTranscript(w, errw io.Writer, asJSON bool) *transcript {
	t := &transcript{w: bufio.NewWriter(w), errw: errw, calls: map[string]event.ToolStartedPayload{}}
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
	p := t.note(e)
	if t.json != nil {
		_ = t.json.Encode(e)
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
	case *event.RunInterruptedPayload:
		t.line(fmt.Sprintf("(run interrupted by a restart; %s)", p.Policy))
	}
}

// note keeps what the footer needs from any event, in both output modes,
// and reports diagnostics on errw; it returns the decoded payload (nil for
// a live delta it need not decode in --json mode).
func (t *transcript) note(e event.Event) any {
	if t.json != nil && e.Kind == event.MessageDelta {
		return nil
	}
	p, err := event.DecodePayload(e.Kind, e.Payload)
	if err != nil {
		return nil
	}
	switch p := p.(type) {
	case *event.ToolStartedPayload:
		t.calls[p.ToolCallID] = *p
	case *event.PermissionResolvedPayload:
		if p.Outcome == "denied" && p.ResolvedBy == event.ResolvedByMode {
			c := t.calls[p.ToolCallID]
			c.ToolCallID = p.ToolCallID
			t.denied = append(t.denied, c)
		}
	case *event.RetryPayload:
		if e.Kind == event.RetryStarted {
			// Attempt is the attempt that failed; MaxAttempts counts the
			// first one too, so the retries are one fewer.
			fmt.Fprintf(t.errw, "troupe run: retry %d/%d in %s: %s\n", p.Attempt, p.MaxAttempts-1, time.Duration(p.DelayMS)*time.Millisecond, p.Error)
		}
	}
	return p
}

// unasked counts the calls denied because no one could be asked.
func (t *transcript) unasked() int { return len(t.denied) }

// footer ends the output: the run's error on errw, the calls denied for
// want of someone to ask and how to allow them, and (in the transcript)
// the stop line.
func (t *transcript) footer(p event.RunEndedPayload, sessionID string) {
	if p.Error != "" {
		fmt.Fprintf(t.errw, "troupe run: %s\n", p.Error)
	}
	if len(t.denied) > 0 {
		say := t.line
		if t.json != nil {
			say = func(s string) { fmt.Fprintf(t.errw, "troupe run: %s\n", s) }
		}
		for _, s := range deniedSummary(t.denied, sessionID) {
			say(s)
		}
	}
	if t.json == nil {
		t.line(fmt.Sprintf("[%s · %d in / %d out tokens]", p.StopReason, p.Usage.Input, p.Usage.Output))
	}
	t.w.Flush()
}

// deniedSummary names the calls denied because troupe run cannot ask for
// approval, and the mode that would have run them.
func deniedSummary(denied []event.ToolStartedPayload, sessionID string) []string {
	names := make([]string, len(denied))
	edits := true
	for i, c := range denied {
		names[i] = strings.TrimSpace(c.Name + " " + c.ToolCallID)
		edits = edits && c.Category == "edit"
	}
	allow := "--yolo: troupe run --session " + sessionID + " --yolo PROMPT"
	if edits {
		allow = "--mode auto_edit (file edits) or --yolo (everything): troupe run --session " + sessionID + " --mode auto_edit PROMPT"
	}
	return []string{
		fmt.Sprintf("✗ %d tool call(s) denied because troupe run cannot ask for approval: %s", len(denied), strings.Join(names, ", ")),
		"  to allow them, run with " + allow,
	}
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
