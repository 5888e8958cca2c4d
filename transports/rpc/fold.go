package rpc

import (
	"encoding/json"

	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/runtime/conversation"
)

// forkPoint is a user message a fork can start from: the new session holds
// Session's log up to Seq (the event before the message joined).
type forkPoint struct {
	EntryID string `json:"entryId"`
	Text    string `json:"text"`
	session string
	seq     int64
}

// fold is one session seen through the protocol: the messages of its
// conversation, its settings and counters, and the projection of each new
// event into protocol events. emit is nil while history is replayed, which
// folds without writing.
type fold struct {
	sessionID string
	lastSeq   int64
	settings  event.Settings
	cwd       string
	title     string
	models    modelView
	partials  Partials

	view      []any // what the model sees: compaction applied
	forks     []forkPoint
	prompts   map[string][]event.Block
	queued    int
	usage     event.Usage
	stats     stats
	lastText  *string
	compactng bool

	run         string
	runMsgs     []any
	turnOpen    bool
	turnMsg     *assistantMessage
	turnResults []any
	pendingUser []*userMessage
	asst        *streaming
	held        *assistantMessage
	calls       map[string]event.ToolCall // of the step, for arguments
	started     map[string]bool

	emit func(line []byte)
	// behind says stdout is behind: a delta then waits in deferred, to be
	// merged into the next line (see meter).
	behind   func() bool
	deferred *streaming
	// onQueued and onRunEnded let the connection answer commands in event
	// order.
	onQueued     func(messageID string)
	onRunStarted func(messageID string) // a queued message was taken: its run started, or it joined one
	onRunEnded   func(runID string)
}

type stats struct {
	User, Assistant, ToolCalls, ToolResults int
}

// modelView names the model messages are attributed to and prices usage.
type modelView interface {
	current(set event.Settings) (provider, model string)
	price(provider, model string, u event.Usage) costJSON
}

func newFold(sessionID string, models modelView) *fold {
	return &fold{sessionID: sessionID, models: models, prompts: map[string][]event.Block{},
		calls: map[string]event.ToolCall{}, started: map[string]bool{}}
}

func (f *fold) live() bool { return f.emit != nil }

func (f *fold) out(v any) {
	if f.emit == nil {
		return
	}
	b, err := marshal(v)
	if err != nil {
		return
	}
	f.write(b)
}

// write emits a line after any delta held back, which comes first.
func (f *fold) write(line []byte) {
	f.flushDeltas()
	f.emit(line)
}

// flushDeltas shows the deltas held back while stdout was behind.
func (f *fold) flushDeltas() {
	s := f.deferred
	if s == nil || f.emit == nil {
		return
	}
	f.deferred = nil
	s.showDelta(f)
}

// Apply folds one event in, projecting it when live.
func (f *fold) Apply(e event.Event) {
	if e.SessionID == f.sessionID && e.Seq > f.lastSeq {
		f.lastSeq = e.Seq
	}
	if e.Kind == event.MessageDelta {
		// The bulk of every log: decoded only when shown.
		if f.live() && f.asst != nil {
			var p event.MessageDeltaPayload
			if json.Unmarshal(e.Payload, &p) == nil {
				f.asst.delta(f, p)
			}
		}
		return
	}
	p, err := event.DecodePayload(e.Kind, e.Payload)
	if err != nil {
		return
	}
	ts := e.RecordedAt.UnixMilli()
	switch p := p.(type) {
	case *event.CreatedPayload:
		f.settings = f.settings.Merge(p.Settings)
		if e.SessionID == f.sessionID {
			f.cwd, f.title = p.Cwd, p.Title
		}
	case *event.Settings:
		f.settings = f.settings.Merge(*p)
		if p.Title != nil {
			f.title = *p.Title
		}
	case *event.PromptQueuedPayload:
		f.prompts[p.MessageID] = p.Content
		f.queued++
		if f.onQueued != nil && e.SessionID == f.sessionID {
			f.onQueued(p.MessageID)
		}
	case *event.PromptChangedPayload:
		f.promptChanged(e.Kind, p)
	case *event.RunStartedPayload:
		f.dequeue()
		f.startRun(p.RunID)
		if f.onRunStarted != nil {
			f.onRunStarted(p.RunID)
		}
		f.deliver(e, p.RunID, ts)
	case *event.PromptDeliveredPayload:
		f.dequeue()
		if f.onRunStarted != nil {
			f.onRunStarted(p.MessageID)
		}
		f.deliver(e, p.MessageID, ts)
	case *event.StepStartedPayload:
		f.startStep(p, ts)
	case *event.MessageCompletedPayload:
		f.completed(p, ts)
	case *event.StepEndedPayload:
		f.stepEnded(p)
	case *event.ToolStartedPayload:
		f.toolStarted(p.ToolCallID, p.Name, p.Arguments)
	case *event.ToolProgressPayload:
		f.toolProgress(p)
	case *event.ToolCompletedPayload:
		f.toolCompleted(p, ts)
	case *event.RetryPayload:
		f.retry(e.Kind, p)
	case *event.CompactionPayload:
		f.compaction(e.Kind, p, ts)
	case *event.BashExecutedPayload:
		f.bash(e, p, ts)
	case *event.HistoryImportedPayload:
		f.imported(e, p, ts)
	case *event.RunEndedPayload:
		f.endRun(p)
	}
}

// resume shows a run that was already going when this connection started
// showing the session (continued after a crash, or started by another
// client): its start again, so its end has a beginning.
func (f *fold) resume() {
	if f.run == "" {
		return
	}
	f.out(typeOnly{Type: "agent_start"})
	if f.turnOpen {
		f.out(typeOnly{Type: "turn_start"})
	}
	f.started = map[string]bool{}
	f.runMsgs = nil
}

// inherited ends what a fork's ancestors left open: a fork taken in the
// middle of a run starts idle, with nothing queued.
func (f *fold) inherited() {
	f.settle("")
	f.run, f.runMsgs, f.turnOpen, f.turnMsg, f.turnResults = "", nil, false, nil, nil
	f.pendingUser, f.asst, f.held, f.deferred = nil, nil, nil, nil
	f.prompts, f.queued = map[string][]event.Block{}, 0
	f.calls, f.started = map[string]event.ToolCall{}, map[string]bool{}
}

func (f *fold) dequeue() {
	if f.queued > 0 {
		f.queued--
	}
}

func (f *fold) promptChanged(kind event.Kind, p *event.PromptChangedPayload) {
	switch kind {
	case event.PromptUpdated:
		if _, ok := f.prompts[p.MessageID]; ok {
			f.prompts[p.MessageID] = p.Content
		}
	case event.PromptCancelled:
		if _, ok := f.prompts[p.MessageID]; ok {
			delete(f.prompts, p.MessageID)
			f.dequeue()
		}
	}
}

func (f *fold) startRun(id string) {
	f.run, f.runMsgs = id, nil
	f.out(typeOnly{Type: "agent_start"})
}

// deliver turns a queued prompt into the user message shown at the start
// of the next turn, as the reference orders it.
func (f *fold) deliver(e event.Event, id string, ts int64) {
	blocks, ok := f.prompts[id]
	if !ok {
		return
	}
	delete(f.prompts, id)
	u := newUser(id, blocks, ts)
	f.forks = append(f.forks, forkPoint{EntryID: id, Text: u.text, session: e.SessionID, seq: e.Seq - 1})
	f.pendingUser = append(f.pendingUser, u)
}

func newUser(id string, blocks []event.Block, ts int64) *userMessage {
	m := conversation.UserMessage(blocks)
	var imgs []imageBlock
	for _, i := range m.Images {
		imgs = append(imgs, imageBlock{Type: "image", Data: i.Data, MimeType: i.MIMEType})
	}
	return &userMessage{Role: "user", Content: userContent(m.Content, imgs), Timestamp: ts, Attachments: []any{}, entryID: id, text: m.Content}
}

func (f *fold) addMessage(m any) {
	f.view = append(f.view, m)
	if f.run != "" {
		f.runMsgs = append(f.runMsgs, m)
	}
	switch m := m.(type) {
	case *userMessage:
		f.stats.User++
	case *assistantMessage:
		f.stats.Assistant++
		f.stats.ToolCalls += len(m.Content) - countNonCalls(m.Content)
		t := m.text
		f.lastText = &t
	case *toolResultMessage:
		f.stats.ToolResults++
	}
}

func countNonCalls(blocks []any) int {
	n := 0
	for _, b := range blocks {
		if _, ok := b.(toolCallBlock); !ok {
			n++
		}
	}
	return n
}

func (f *fold) flushUsers() {
	for _, u := range f.pendingUser {
		f.addMessage(u)
		f.out(messageEvent{Type: "message_start", Message: u})
		f.out(messageEvent{Type: "message_end", Message: u})
	}
	f.pendingUser = nil
}

type messageEvent struct {
	Type    string `json:"type"`
	Message any    `json:"message"`
}

func (f *fold) startStep(p *event.StepStartedPayload, ts int64) {
	if f.run == "" {
		// A run resumed after a crash: its agent_start was in another life.
		f.startRun(p.RunID)
	}
	f.endTurn()
	f.turnOpen = true
	f.out(typeOnly{Type: "turn_start"})
	f.flushUsers()
	if p.Instruction != "" {
		f.pendingUser = append(f.pendingUser, &userMessage{Role: "user", Content: p.Instruction, Timestamp: ts, Attachments: []any{}, entryID: "instruction-" + p.MessageID, text: p.Instruction})
		f.flushUsers()
	}
	provider, model := f.models.current(f.settings)
	f.asst = newStreaming(p.MessageID, provider, model, ts, f.partials)
	f.calls, f.started = map[string]event.ToolCall{}, map[string]bool{}
	if f.live() {
		f.write(f.asst.startLine())
	}
}

func (f *fold) endTurn() {
	if !f.turnOpen {
		return
	}
	f.settle("")
	f.turnOpen = false
	results := f.turnResults
	if results == nil {
		results = []any{}
	}
	var msg any
	if f.turnMsg != nil {
		msg = f.turnMsg
	}
	f.out(turnEndEvent{Type: "turn_end", Message: msg, ToolResults: results})
	f.turnMsg, f.turnResults = nil, nil
}

func (f *fold) completed(p *event.MessageCompletedPayload, ts int64) {
	provider, model := f.models.current(f.settings)
	if f.asst != nil {
		f.asst.closeBlock(f)
		ts = f.asst.ts
	}
	m := &assistantMessage{Role: "assistant", API: api, Provider: provider, Model: model, Timestamp: ts, entryID: p.MessageID, text: p.Text, Content: []any{}}
	if p.Thinking != "" {
		m.Content = append(m.Content, thinkingBlock{Type: "thinking", Thinking: p.Thinking})
	}
	if p.Text != "" {
		m.Content = append(m.Content, textBlock{Type: "text", Text: p.Text})
	}
	for _, c := range p.ToolCalls {
		m.Content = append(m.Content, toolCallBlock{Type: "toolCall", ID: c.ID, Name: c.Name, Arguments: argsJSON(c.Arguments)})
		f.calls[c.ID] = c
	}
	f.held = m
}

func (f *fold) stepEnded(p *event.StepEndedPayload) {
	if f.held == nil {
		return
	}
	f.held.Usage = f.usageJSON(p.Usage)
	if stop := finishStop(p.FinishReason); stop != "" {
		f.held.StopReason = stop
		f.settle("")
	}
}

// settle ends the assistant message of the step: the held complete one, or
// what streamed of one that never completed.
func (f *fold) settle(stop string) {
	m := f.held
	if m == nil && f.asst != nil && stop != "" {
		m = f.asst.partialMessage()
	}
	f.asst = nil
	if m == nil {
		return
	}
	f.held = nil
	if m.StopReason == "" {
		m.StopReason = stop
	}
	if m.StopReason == "" {
		m.StopReason = "stop"
	}
	ev := finalEvent{Type: "done", Reason: m.StopReason, Message: m}
	if m.StopReason == "error" || m.StopReason == "aborted" {
		ev = finalEvent{Type: "error", Reason: m.StopReason, Error: m}
	}
	f.out(updateEvent{Type: "message_update", Message: m, AssistantMessageEvent: ev})
	f.out(messageEvent{Type: "message_end", Message: m})
	f.addMessage(m)
	f.turnMsg = m
}

const api = "openai-completions"

func finishStop(finish string) string {
	switch finish {
	case "stop":
		return "stop"
	case "tool_calls":
		return "toolUse"
	case "length":
		return "length"
	case "content_filter":
		return "error"
	case "interrupted", "cancelled":
		return "aborted"
	}
	return ""
}

func runStop(stop string) string {
	switch stop {
	case event.StopCancelled:
		return "aborted"
	case event.StopError, event.StopRefusal:
		return "error"
	case event.StopMaxTokens:
		return "length"
	}
	return "stop"
}

func (f *fold) usageJSON(u event.Usage) usageJSON {
	provider, model := f.models.current(f.settings)
	return usageJSON{Input: u.Input, Output: u.Output, CacheRead: u.CacheRead, CacheWrite: u.CacheWrite,
		TotalTokens: u.Input + u.Output + u.CacheRead + u.CacheWrite, Cost: f.models.price(provider, model, u)}
}

func (f *fold) endRun(p *event.RunEndedPayload) {
	stop := runStop(p.StopReason)
	if f.held == nil && f.asst != nil {
		// Cut before it completed: what streamed is the message.
		f.held = f.asst.partialMessage()
	}
	if f.held != nil && p.Error != "" {
		f.held.ErrorMessage = p.Error
	}
	if f.held != nil && (p.StopReason == event.StopCancelled || p.StopReason == event.StopError) {
		f.held.StopReason = stop
	}
	f.settle(stop)
	f.endTurn()
	f.usage.Add(p.Usage)
	msgs := f.runMsgs
	if msgs == nil {
		msgs = []any{}
	}
	if f.run != "" || f.live() {
		f.out(agentEndEvent{Type: "agent_end", Messages: msgs})
	}
	f.run, f.runMsgs, f.pendingUser = "", nil, nil
	if f.onRunEnded != nil {
		f.onRunEnded(p.RunID)
	}
}
