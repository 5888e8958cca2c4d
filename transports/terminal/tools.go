package terminal

import (
	"encoding/json"
	"fmt"
	"strings"
)

// toolView is what the updates told of one tool call.
type toolView struct {
	title, kind, status, summary string
	output                       string
	// start is when the call began running (else when first seen), in
	// the updates' epoch ms.
	start  int64
	seen   int64 // when first seen
	ran    bool
	closed bool
	// waited is how long the call waited for a permission decision (ms),
	// shown apart from how long it ran; asked says it waited for one.
	waited int64
	asked  bool
	// awaiting: this client was asked to decide; the decision (this
	// client's own answer shows as the call's in_progress) ends the wait.
	awaiting bool
}

// permissionWaited starts a call's run at its permission decision (at):
// the decision, not the in_progress update a replay coalesces away, ends
// the wait, so the call's duration is its run's live and replayed alike.
func (r *Renderer) permissionWaited(id string, at int64) {
	t := r.tools[id]
	if t == nil || t.asked || at < t.seen {
		return
	}
	t.waited, t.asked = at-t.seen, true
	if !t.ran {
		t.start, t.ran = at, true
	}
}

func (r *Renderer) tool(u *update, at int64) {
	t := r.tools[u.ToolCallID]
	if t == nil {
		t = &toolView{start: at, seen: at}
		r.tools[u.ToolCallID] = t
		r.stopWaiting()
	}
	if u.Title != "" {
		t.title = u.Title
	}
	if u.Kind != "" {
		t.kind = u.Kind
	}
	if len(u.RawInput) > 0 {
		t.summary = summary(u.RawInput)
	}
	if out := toolOutput(u.Content); out != "" {
		t.output = out
	}
	if u.Status != "" {
		if u.Status == "in_progress" && !t.ran {
			t.ran, t.start = true, at
			if t.awaiting {
				t.waited, t.asked = at-t.seen, true
			}
		}
		t.status = u.Status
	}
	if t.closed {
		return
	}
	if t.status != "completed" && t.status != "failed" {
		if r.live && r.openTool == "" && !r.asking() {
			r.endBlock()
			if !r.lineStart {
				r.write("\n")
			}
			r.write(r.toolLine(t, at))
			r.openTool = u.ToolCallID
		}
		return
	}
	t.closed = true
	if r.openTool == u.ToolCallID {
		r.openTool = ""
		r.write("\r\x1b[2K")
		r.lineStart = true // the open line was erased: its place is free
	}
	// One write: a permission prompt shown again after a line must not
	// come between a call's line and its diff.
	r.line(r.toolLine(t, at) + r.toolDetail(t))
	if r.running {
		r.startWaiting() // the model reads the result next
	}
}

// closeTool ends an open tool line where it stands.
func (r *Renderer) closeTool() {
	if r.openTool == "" {
		return
	}
	r.openTool = ""
	r.write("\n")
}

// toolLine is one call on one line: status, name, what it works on and,
// once it ended, how long it ran.
func (r *Renderer) toolLine(t *toolView, at int64) string {
	var mark string
	switch t.status {
	case "completed":
		mark = r.st.wrap(sgrGreen, "✓")
	case "failed":
		mark = r.st.wrap(sgrRed, "✗")
	default:
		mark = r.st.wrap(sgrYellow, "⋯")
	}
	s := "  " + mark + " " + r.st.wrap(sgrBold, t.title)
	if t.summary != "" {
		s += " " + t.summary
	}
	if (t.status == "completed" || t.status == "failed") && t.start > 0 && at >= t.start {
		took := fmt.Sprintf("%.1fs", float64(at-t.start)/1000)
		if t.asked {
			took += fmt.Sprintf(" (after %.1fs waiting for permission)", float64(t.waited)/1000)
		}
		s += " " + r.st.wrap(sgrDim, took)
	}
	return s
}

// toolDetail follows an ended call's line: an edit's diff, coloured, or
// the first line of a failure; each of its lines starts with a newline.
func (r *Renderer) toolDetail(t *toolView) string {
	switch {
	case t.status == "completed" && t.kind == "edit" && isDiff(t.output):
		return r.diff(t.output)
	case t.status == "failed" && t.output != "":
		return "\n    " + r.st.wrap(sgrRed, oneLine(firstLine(t.output), 200))
	}
	return ""
}

func isDiff(s string) bool { return strings.HasPrefix(s, "--- ") || strings.Contains(s, "\n@@ ") }

// diff is a unified diff indented, its lines coloured as git does.
func (r *Renderer) diff(d string) string {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimSuffix(d, "\n"), "\n") {
		var seq string
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
			seq = sgrBold
		case strings.HasPrefix(l, "+"):
			seq = sgrGreen
		case strings.HasPrefix(l, "-"):
			seq = sgrRed
		case strings.HasPrefix(l, "@@"):
			seq = sgrCyan
		}
		if seq != "" {
			l = r.st.wrap(seq, l)
		}
		b.WriteString("\n    " + l)
	}
	return b.String()
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// summary is what a call works on, from its arguments: a path, a command,
// a pattern; else the arguments themselves, cut short.
func summary(raw json.RawMessage) string {
	var args map[string]any
	if json.Unmarshal(raw, &args) != nil {
		return ""
	}
	for _, k := range []string{"path", "file_path", "command", "pattern", "url", "query"} {
		if s, ok := args[k].(string); ok && s != "" {
			return oneLine(s, 80)
		}
	}
	if len(args) == 0 {
		return ""
	}
	return oneLine(string(raw), 80)
}

// toolOutput is the text a tool call update carries.
func toolOutput(raw json.RawMessage) string {
	var cs []toolContent
	if json.Unmarshal(raw, &cs) != nil {
		return ""
	}
	var b strings.Builder
	for _, c := range cs {
		if c.Content != nil {
			b.WriteString(c.Content.Text)
		}
	}
	return b.String()
}
