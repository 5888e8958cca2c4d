package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/runtime/logging"
	"github.com/troupehq/troupe/transports/acpupdate"
	"github.com/troupehq/troupe/transports/terminal"
)

// transcript prints a run for a person (or as NDJSON). A person gets what
// `troupe session prompt` shows, drawn by the same renderer
// (transports/terminal) from the same updates an ACP client is sent
// (acpupdate): the answer on stdout between the line naming the session and
// the stop line; thinking, tool calls and their output, notes on errw
// (stderr); colours when both are a terminal. Errors go to errw, never
// to the transcript.
type transcript struct {
	w      *bufio.Writer
	errw   io.Writer
	json   *json.Encoder
	view   *terminal.Renderer
	mapper *acpupdate.Mapper
	calls  map[string]event.ToolStartedPayload
	// denied are the calls denied because no one could be asked, in order.
	denied []event.ToolStartedPayload
}

func newTranscript(w, errw io.Writer, asJSON bool) *transcript {
	t := &transcript{w: bufio.NewWriter(w), errw: errw, calls: map[string]event.ToolStartedPayload{}}
	if asJSON {
		t.json = json.NewEncoder(t.w)
		return t
	}
	// The view writes unbuffered: its answer and its side lines must reach
	// a terminal showing both in the order written.
	t.view = terminal.NewRenderer(w, terminal.Options{Colour: logging.Colour(w) && logging.Colour(errw), Side: errw})
	return t
}

func (t *transcript) header(id string) {
	if t.json == nil {
		t.mapper = acpupdate.NewMapper(id, nil)
		fmt.Fprintf(t.w, "session %s\n", id)
		t.w.Flush()
	}
}

// viewParams is a session/update's params as the renderer reads them.
type viewParams struct {
	SessionID string   `json:"sessionId"`
	Update    any      `json:"update"`
	Meta      viewMeta `json:"_meta"`
}

type viewMeta struct {
	Hydra struct {
		RecordedAt int64 `json:"recordedAt"`
	} `json:"hydra-acp"`
}

func (t *transcript) event(e event.Event) {
	defer t.w.Flush()
	p := t.note(e)
	if t.json != nil {
		_ = t.json.Encode(e)
		return
	}
	if p, ok := p.(*event.RunInterruptedPayload); ok {
		t.view.Note(fmt.Sprintf("(run interrupted by a restart; %s)", p.Policy))
	}
	if e.Kind == event.RetryStarted {
		t.view.MarkCut() // what the failed attempt streamed, if anything
	}
	for _, u := range t.mapper.Apply(e) {
		switch kind, _ := acpupdate.Describe(u); kind {
		case "turn_complete":
			continue // the stop line ends the transcript
		case "troupe_retry":
			continue // note's retry line on stderr says it
		}
		params := viewParams{SessionID: t.mapper.View.SessionID, Update: u}
		params.Meta.Hydra.RecordedAt = e.RecordedAt.UnixMilli()
		raw, err := json.Marshal(params)
		if err != nil {
			continue
		}
		t.view.Update(raw)
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

// line writes s as a line of the transcript's own, after what the view
// left open.
func (t *transcript) line(s string) {
	t.view.EndLine()
	t.w.WriteString(s)
	t.w.WriteByte('\n')
}

func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > max {
		return s[:max] + "…"
	}
	return s
}
