package rest

import (
	"encoding/json"
	"strings"

	"github.com/troupehq/troupe/persistence/event"
)

// conversationOf rebuilds the messages of a hydra history (a bundle from a
// daemon that is not troupe): consecutive user_message_chunk and
// agent_message_chunk texts joined per speaker, in order. Tool calls and
// the rest of the agent's own bookkeeping are not carried over.
func conversationOf(history []historyEntry) []event.HistoryMessage {
	var out []event.HistoryMessage
	var role string
	var text strings.Builder
	flush := func() {
		if role != "" && strings.TrimSpace(text.String()) != "" {
			out = append(out, event.HistoryMessage{Role: role, Content: text.String()})
		}
		role = ""
		text.Reset()
	}
	for _, h := range history {
		if h.Method != "session/update" {
			continue
		}
		var p struct {
			Update struct {
				SessionUpdate string `json:"sessionUpdate"`
				Content       struct {
					Type string `json:"type"`
					Text string `json:"text"`
				} `json:"content"`
			} `json:"update"`
		}
		if json.Unmarshal(h.Params, &p) != nil || p.Update.Content.Type != "text" {
			continue
		}
		var r string
		switch p.Update.SessionUpdate {
		case "user_message_chunk":
			r = "user"
		case "agent_message_chunk":
			r = "assistant"
		default:
			continue
		}
		if r != role {
			flush()
			role = r
		}
		text.WriteString(p.Update.Content.Text)
	}
	flush()
	return out
}
