package terminal

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Option is one answer a permission request offers, and the key that
// picks it.
type Option struct {
	OptionID string `json:"optionId"`
	Name     string `json:"name"`
	Kind     string `json:"kind"`
	Key      byte   `json:"-"`
}

// Ask is a session/request_permission the daemon sent this client.
type Ask struct {
	// ID is the request's JSON-RPC id, which the answer carries.
	ID         json.RawMessage
	ToolCallID string
	Title      string
	Kind       string // ACP's tool kind: read, edit, execute, search, fetch, …
	Summary    string
	// Change is what an edit or write would do to its file, as a unified
	// diff of the call's arguments: shown above the question, once.
	Change      string
	changeShown bool
	Options     []Option
}

type askParams struct {
	SessionID string `json:"sessionId"`
	ToolCall  struct {
		ToolCallID string          `json:"toolCallId"`
		Title      string          `json:"title"`
		Kind       string          `json:"kind"`
		RawInput   json.RawMessage `json:"rawInput"`
	} `json:"toolCall"`
	Options []Option `json:"options"`
}

// ParseAsk reads a session/request_permission request.
func ParseAsk(id, params json.RawMessage) (*Ask, error) {
	var p askParams
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, fmt.Errorf("permission request: %w", err)
	}
	if len(p.Options) == 0 {
		return nil, fmt.Errorf("permission request for %s offers no options", p.ToolCall.ToolCallID)
	}
	a := &Ask{ID: id, ToolCallID: p.ToolCall.ToolCallID, Title: p.ToolCall.Title, Kind: p.ToolCall.Kind, Options: p.Options}
	if len(p.ToolCall.RawInput) > 0 {
		a.Summary = summary(p.ToolCall.RawInput)
		a.Change = change(p.ToolCall.RawInput)
	}
	assignKeys(a.Options)
	return a, nil
}

// assignKeys gives each option its key: y allow once, a always, n deny,
// N deny always; digits for kinds ACP may add later.
func assignKeys(opts []Option) {
	used := map[byte]bool{}
	for i := range opts {
		var k byte
		switch opts[i].Kind {
		case "allow_once":
			k = 'y'
		case "allow_always":
			k = 'a'
		case "reject_once":
			k = 'n'
		case "reject_always":
			k = 'N'
		}
		if k == 0 || used[k] {
			k = '1' + byte(i)
		}
		used[k] = true
		opts[i].Key = k
	}
}

func (a *Ask) option(key byte) (Option, bool) {
	for _, o := range a.Options {
		if o.Key == key {
			return o, true
		}
	}
	return Option{}, false
}

// Ask queues a permission request; the first waiting is shown.
func (r *Renderer) Ask(a *Ask) {
	if t := r.tools[a.ToolCallID]; t != nil {
		t.awaiting = true // its run starts at the decision
	}
	r.asks = append(r.asks, a)
	if len(r.asks) == 1 {
		r.showAsk()
	}
}

func (r *Renderer) asking() bool { return len(r.asks) > 0 }

// Withdraw ends the requests shown or waiting, on the person's cancel of
// the turn (which cancels them): the one shown says so where it stands,
// and none is drawn again under the lines the cancel brings, nor said
// withdrawn again when the daemon resolves it.
func (r *Renderer) Withdraw() {
	if len(r.asks) == 0 {
		return
	}
	r.write("→ " + r.st.wrap(sgrDim, "withdrawn") + "\n")
	for _, a := range r.asks {
		r.answered[a.ToolCallID] = true
	}
	r.asks = nil
}

// showAsk writes the first request's prompt, left open for the answer.
func (r *Renderer) showAsk() {
	if len(r.asks) == 0 {
		return
	}
	a := r.asks[0]
	r.endBlock()
	r.closeTool()
	if !r.lineStart {
		r.write("\n")
	}
	if a.Change != "" && !a.changeShown {
		a.changeShown = true
		r.write(strings.TrimPrefix(r.diff(a.Change), "\n") + "\n")
	}
	s := r.st.wrap(sgrYellow, "?") + " allow " + r.st.wrap(sgrBold, a.Title)
	if a.Summary != "" {
		s += " " + a.Summary
	}
	s += "?"
	for _, o := range a.Options {
		s += "  " + r.st.wrap(sgrCyan, "["+string(o.Key)+"]") + " " + o.Name
	}
	r.write(s + " ")
}

// Key takes a key pressed while a request is shown: the request and the
// option it picked, or false when it picks nothing.
func (r *Renderer) Key(k byte) (*Ask, Option, bool) {
	if len(r.asks) == 0 {
		return nil, Option{}, false
	}
	a := r.asks[0]
	o, ok := a.option(k)
	if !ok {
		return nil, Option{}, false
	}
	mark := sgrGreen
	if strings.HasPrefix(o.Kind, "reject") {
		mark = sgrRed
	}
	r.write("→ " + r.st.wrap(mark, o.Name) + "\n")
	r.answered[a.ToolCallID] = true
	r.asks = r.asks[1:]
	r.showAsk()
	return a, o, true
}

// permissionResolved: a request another client answered first is
// withdrawn here, saying so; the next waiting one is shown.
func (r *Renderer) permissionResolved(u *update) {
	if r.answered[u.ToolCallID] {
		delete(r.answered, u.ToolCallID)
		return
	}
	msg := "answered by another client: " + u.Outcome
	switch {
	case u.Outcome == "cancelled":
		msg = "withdrawn: the turn was cancelled"
	case u.ResolvedBy == "mode":
		msg = "settled by the approval mode: " + u.Outcome
	case u.ResolvedBy != "" && u.ResolvedBy != "daemon":
		msg = "answered by " + u.ResolvedBy + ": " + u.Outcome
	}
	r.withdraw(u.ToolCallID, msg)
}

// withdraw takes a waiting request away, saying msg where its prompt
// stands when it is the one shown; the next waiting one is shown.
func (r *Renderer) withdraw(toolCallID, msg string) bool {
	for i, a := range r.asks {
		if a.ToolCallID != toolCallID {
			continue
		}
		r.asks = append(r.asks[:i:i], r.asks[i+1:]...)
		if i == 0 {
			// The prompt is withdrawn where it stands, on its own line.
			r.write(r.st.wrap(sgrDim, msg) + "\n")
			r.showAsk()
		}
		return true
	}
	return false
}
