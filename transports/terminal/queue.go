package terminal

import (
	"encoding/json"
	"fmt"
)

type queueNote struct {
	MessageID  string `json:"messageId"`
	Originator struct {
		ClientID string `json:"clientId"`
	} `json:"originator"`
	Prompt     []contentBlock `json:"prompt"`
	Position   int            `json:"position"`
	QueueDepth int            `json:"queueDepth"`
	Reason     string         `json:"reason"`
}

// Notification shows the hydra notifications a session's clients get
// besides session/update: the prompt queue's changes, the session going
// cold. Others change nothing.
func (r *Renderer) Notification(method string, params json.RawMessage) {
	var q queueNote
	if json.Unmarshal(params, &q) != nil {
		return
	}
	switch method {
	case "hydra-acp/prompt_queue/added":
		if q.Originator.ClientID != "" && q.Originator.ClientID == r.self {
			return // this client's own prompt: its turn shows
		}
		about := fmt.Sprintf("%d waiting", q.QueueDepth)
		if q.Originator.ClientID != "" {
			about = "from " + q.Originator.ClientID + ", " + about
		}
		r.line(r.st.wrap(sgrBlue, "+ queued: ") + promptText(q.Prompt) + " " + r.st.wrap(sgrDim, "("+about+")"))
	case "hydra-acp/prompt_queue/updated":
		r.line(r.st.wrap(sgrBlue, "~ queued prompt changed: ") + promptText(q.Prompt))
	case "hydra-acp/prompt/amended":
		r.line(r.st.wrap(sgrBlue, "~ prompt amended: ") + promptText(q.Prompt))
	case "hydra-acp/prompt_queue/removed":
		switch q.Reason {
		case "started":
			// The prompt_received (another's) or the prompt's own answer
			// shows the turn; here it only starts.
			r.running = true
			r.startWaiting()
		case "cancelled":
			r.line(r.st.wrap(sgrBlue, "- queued prompt cancelled"))
		}
	case "hydra-acp/session/closed":
		r.stopWaiting()
		r.running, r.closed = false, true
		if q.Reason != "" {
			r.Note("the session was stopped (" + q.Reason + "); attach again to follow it")
			return
		}
		r.Note("the session was stopped (cold); attach again to follow it")
	}
}
