package terminal

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
)

// Options say what the output may hold.
type Options struct {
	// Colour allows ANSI colours and styles.
	Colour bool
	// Live is a terminal: a spinner while the model has not answered, and
	// a tool call's line rewritten in place when it ends.
	Live bool
	// Now is the spinner's clock; time.Now when nil.
	Now func() time.Time
	// Side, when set, takes all but the agent's answer (thinking, tool
	// lines, asks, notes, the spinner), so the answer alone can be piped.
	Side io.Writer
}

// Renderer turns one session's updates into terminal output. It is not
// safe for concurrent use: one loop feeds it.
type Renderer struct {
	w    io.Writer // the agent's answer
	side io.Writer // the rest: w unless Options.Side
	st   style
	live bool
	now  func() time.Time
	err  error

	// block is the streamed block being written: text, thought or user;
	// styled when it opened a style to close.
	block     string
	styled    bool
	lineStart bool
	tools     map[string]*toolView
	// openTool is the call whose line was left open to be rewritten.
	openTool string
	// lastText is the assistant message whose text was shown last in this
	// turn: the next message's text (the next step's) starts a paragraph.
	lastText string

	running      bool
	waiting      bool
	waitSince    time.Time
	spinnerShown bool
	frame        int

	asks     []*Ask
	answered map[string]bool
	// self is this client's id in the session.
	self string
	// closed: the session stopped, and this attachment with it.
	closed bool
}

// NewRenderer writes to w.
func NewRenderer(w io.Writer, o Options) *Renderer {
	now := o.Now
	if now == nil {
		now = time.Now
	}
	side := o.Side
	if side == nil {
		side = w
	}
	return &Renderer{w: w, side: side, st: style{colour: o.Colour}, live: o.Live, now: now, lineStart: true,
		tools: map[string]*toolView{}, answered: map[string]bool{}}
}

// Err is the first write error, if any.
func (r *Renderer) Err() error { return r.err }

// Running is whether a turn runs, as far as the updates tell.
func (r *Renderer) Running() bool { return r.running }

// Closed is whether the daemon said the session stopped: an attachment
// sees nothing more until it attaches again.
func (r *Renderer) Closed() bool { return r.closed }

// SetClientID names this client, whose own prompts are not news.
func (r *Renderer) SetClientID(id string) { r.self = id }

// SetRunning records what an attach answer's busy says.
func (r *Renderer) SetRunning(busy bool) {
	r.running = busy
	if busy {
		r.startWaiting()
	}
}

func (r *Renderer) write(s string) { r.writeTo(r.side, s) }

// blockOut is where the open block's writes go: the answer's to w.
func (r *Renderer) blockOut() io.Writer {
	if r.block == "text" {
		return r.w
	}
	return r.side
}

func (r *Renderer) writeTo(w io.Writer, s string) {
	if s == "" || r.err != nil {
		return
	}
	r.clearSpinner()
	if _, err := io.WriteString(w, s); err != nil {
		r.err = err
		return
	}
	r.lineStart = strings.HasSuffix(s, "\n")
}

// line writes s as a line of its own; a permission prompt it cut is
// shown again below it.
func (r *Renderer) line(s string) {
	r.endBlock()
	r.closeTool()
	if !r.lineStart {
		r.write("\n")
	}
	r.write(s + "\n")
	if r.asking() {
		r.showAsk()
	}
}

// Note writes a line of the client's own (attached, detaching, …), dimmed.
func (r *Renderer) Note(s string) { r.line(r.st.wrap(sgrDim, s)) }

// Error writes an error line.
func (r *Renderer) Error(s string) { r.line(r.st.wrap(sgrRed, s)) }

// endBlock closes the streamed block: its style, and its line.
func (r *Renderer) endBlock() {
	if r.block == "" {
		return
	}
	out := r.blockOut()
	r.block = ""
	if r.styled {
		r.writeTo(out, r.st.off())
	}
	if !r.lineStart {
		r.writeTo(out, "\n")
	}
}

// EndLine closes what is left open (a streamed block, a tool line), so
// what the caller writes next starts a line.
func (r *Renderer) EndLine() {
	r.endBlock()
	r.closeTool()
}

// openBlock starts a streamed block of kind unless one is open.
func (r *Renderer) openBlock(kind, seq, prefix string) {
	if r.block == kind {
		return
	}
	r.endBlock()
	r.closeTool()
	if !r.lineStart {
		r.write("\n")
	}
	r.block, r.styled = kind, seq != ""
	r.writeTo(r.blockOut(), r.st.on(seq)+prefix)
}

type stampMeta struct {
	Hydra struct {
		MessageID  string `json:"messageId"`
		RecordedAt int64  `json:"recordedAt"`
	} `json:"hydra-acp"`
}

type contentBlock struct {
	Type string `json:"type"`
	Text string `json:"text"`
	URI  string `json:"uri"`
}

type toolContent struct {
	Type    string        `json:"type"`
	Content *contentBlock `json:"content"`
}

type update struct {
	SessionUpdate string          `json:"sessionUpdate"`
	Content       json.RawMessage `json:"content"`
	ToolCallID    string          `json:"toolCallId"`
	Title         string          `json:"title"`
	Kind          string          `json:"kind"`
	Status        string          `json:"status"`
	RawInput      json.RawMessage `json:"rawInput"`
	Prompt        []contentBlock  `json:"prompt"`
	SentBy        sentBy          `json:"sentBy"`
	StopReason    string          `json:"stopReason"`
	Outcome       string          `json:"outcome"`
	ResolvedBy    string          `json:"resolvedBy"`
	CurrentModeID string          `json:"currentModeId"`
	Phase         string          `json:"phase"`
	Error         string          `json:"error"`
	Attempt       int             `json:"attempt"`
	Retries       int             `json:"retries"`
	DelayMS       int64           `json:"delayMs"`
	Meta          struct {
		Hydra struct {
			CompatFor    string `json:"compatFor"`
			ACPMessageID string `json:"acpMessageId"`
		} `json:"hydra-acp"`
	} `json:"_meta"`
}

type updateParams struct {
	SessionID string    `json:"sessionId"`
	Update    update    `json:"update"`
	Meta      stampMeta `json:"_meta"`
}

// Update shows one session/update notification's params. An update it
// cannot read or does not show changes nothing.
func (r *Renderer) Update(params json.RawMessage) {
	var p updateParams
	if json.Unmarshal(params, &p) != nil {
		return
	}
	u := &p.Update
	at := p.Meta.Hydra.RecordedAt
	if u.SessionUpdate == "troupe_retry" && u.Phase == "started" {
		r.MarkCut()
	}
	switch u.SessionUpdate {
	case "agent_message_chunk":
		r.stepBreak(u.Meta.Hydra.ACPMessageID)
		r.chunk("text", "", "", u.Content)
	case "agent_thought_chunk":
		r.chunk("thought", sgrDim, "", u.Content)
	case "user_message_chunk":
		if u.Meta.Hydra.CompatFor == "prompt_received" {
			return // the prompt_received with it shows the prompt
		}
		r.lastText = "" // a new turn's prompt: its answer starts no paragraph
		r.chunk("user", sgrBold, "› ", u.Content)
	case "prompt_received":
		r.promptReceived(u)
	case "tool_call", "tool_call_update":
		r.tool(u, at)
	case "permission_resolved":
		r.permissionWaited(u.ToolCallID, at)
		r.permissionResolved(u)
	case "turn_complete":
		r.TurnEnded(u.StopReason)
	case "current_mode_update":
		r.Note("mode: " + u.CurrentModeID)
	case "session_info_update":
		if u.Title != "" {
			r.Note("title: " + u.Title)
		}
	case "hydra_compaction":
		r.compaction(u)
	case "troupe_retry":
		r.retry(u)
	}
}

// stepBreak starts a paragraph when a message's text follows another
// message's in the same turn: each step of a run is a message, and their
// texts run together otherwise ("…the stream.Stream starts…").
func (r *Renderer) stepBreak(messageID string) {
	prev := r.lastText
	if messageID == "" || messageID == prev {
		return
	}
	r.lastText = messageID
	if prev == "" {
		return
	}
	if r.block == "text" {
		r.writeTo(r.w, "\n\n")
		return
	}
	r.endBlock()
	r.closeTool()
	r.writeTo(r.w, "\n")
}

func (r *Renderer) chunk(kind, seq, prefix string, raw json.RawMessage) {
	var b contentBlock
	if json.Unmarshal(raw, &b) != nil {
		return
	}
	text := b.Text
	if b.Type != "text" && b.Type != "" {
		text = "[" + b.Type + " " + b.URI + "]"
	}
	if kind != "user" {
		r.stopWaiting()
	}
	if kind == "thought" && !r.st.colour {
		// Without colour thinking is not dimmed: each of its lines is
		// marked instead, so it cannot pass for the answer.
		r.openBlock(kind, seq, "")
		r.writeTo(r.blockOut(), r.markThought(text))
		return
	}
	r.openBlock(kind, seq, prefix)
	r.writeTo(r.blockOut(), text)
}

// thoughtMark starts each line of thinking shown without colour.
const thoughtMark = "┊ "

// markThought is text with thoughtMark at the start of each line it
// starts; a line break at its end leaves the mark to the next text, so a
// thought that ends never leaves a bare mark behind.
func (r *Renderer) markThought(text string) string {
	var b strings.Builder
	for i, line := range strings.SplitAfter(text, "\n") {
		if line == "" {
			continue
		}
		if i > 0 || r.lineStart {
			b.WriteString(thoughtMark)
		}
		b.WriteString(line)
	}
	return b.String()
}

// MarkCut marks what a model's reply streamed as cut off and discarded
// when its stream failed and is tried again (troupe_retry started): the
// reply streams again from its start below the mark. Written text cannot
// be taken back from a pipe, so it is marked, the same on a terminal.
// Nothing is marked when nothing streamed.
func (r *Renderer) MarkCut() {
	if r.block != "text" && r.block != "thought" {
		return
	}
	r.line(r.st.wrap(sgrYellow, "↻ the reply above was cut off and is discarded"))
}

// PromptSent: this client's own prompt went out, so a turn will run.
func (r *Renderer) PromptSent() {
	r.running = true
	r.startWaiting()
}

func (r *Renderer) promptReceived(u *update) {
	r.lastText = ""
	from := ""
	if who := u.SentBy.label(); who != "" {
		from = " " + r.st.wrap(sgrDim, "(from "+who+")")
	}
	r.line(r.st.wrap(sgrBold, "› "+promptText(u.Prompt)) + from)
	r.running = true
	r.startWaiting()
}

// TurnEnded closes a turn with its stop reason.
func (r *Renderer) TurnEnded(stopReason string) {
	r.lastText = ""
	r.stopWaiting()
	r.running = false
	if stopReason == "" {
		stopReason = "ended"
	}
	r.line(r.st.wrap(sgrDim, "── "+stopReason))
}

func (r *Renderer) compaction(u *update) {
	switch u.Phase {
	case "started":
		r.Note("compacting the conversation…")
	case "swapped":
		r.Note("conversation compacted")
	case "failed":
		r.Error("compaction failed: " + u.Error)
	}
}

// retry says each automatic retry, counted against the retries allowed,
// with its wait and the error that caused it (the spinner goes on
// meanwhile), and the recovery; retries spent are followed by the
// turn's error.
func (r *Renderer) retry(u *update) {
	switch u.Phase {
	case "started":
		r.Note(fmt.Sprintf("retry %d/%d in %s: %s", u.Attempt, u.Retries, time.Duration(u.DelayMS)*time.Millisecond, u.Error))
	case "recovered":
		r.Note(fmt.Sprintf("recovered after %d %s", u.Attempt, plural(u.Attempt, "retry", "retries")))
	case "failed":
		r.Note(fmt.Sprintf("gave up after %d %s", u.Attempt, plural(u.Attempt, "retry", "retries")))
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func (r *Renderer) startWaiting() {
	if !r.waiting {
		r.waiting, r.waitSince = true, r.now()
	}
}

func (r *Renderer) stopWaiting() { r.waiting = false }

// promptText is a prompt's text on one line.
func promptText(bs []contentBlock) string {
	var parts []string
	for _, b := range bs {
		if b.Type == "text" || b.Type == "" {
			parts = append(parts, b.Text)
			continue
		}
		parts = append(parts, "["+b.Type+" "+b.URI+"]")
	}
	return oneLine(strings.Join(parts, " "), 200)
}

// oneLine is s with its line breaks as spaces, cut to max runes.
func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if rs := []rune(s); len(rs) > max {
		return string(rs[:max-1]) + "…"
	}
	return s
}

// sentBy is prompt_received's sender: {clientId, name?, version?} as
// Hydra sends it, or a bare client id (troupe before it).
type sentBy struct {
	ClientID string `json:"clientId"`
	Name     string `json:"name"`
}

func (s *sentBy) UnmarshalJSON(b []byte) error {
	var id string
	if json.Unmarshal(b, &id) == nil {
		s.ClientID = id
		return nil
	}
	type plain sentBy
	return json.Unmarshal(b, (*plain)(s))
}

// label names the sender: its client's name, else its id.
func (s sentBy) label() string {
	if s.Name != "" {
		return s.Name
	}
	return s.ClientID
}
