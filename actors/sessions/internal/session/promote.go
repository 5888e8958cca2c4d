package session

import (
	"encoding/json"
	"strings"

	"github.com/troupehq/troupe/persistence/event"
)

// HydraCatClient is the clientInfo name of hydra's `cat`: a session it
// creates is not interactive, as hydra infers from that name.
const HydraCatClient = "hydra-acp-cat"

// untitledOrigins are the front ends whose sessions keep their own naming:
// pi's RPC (set_session_name alone) and aionrs's JSON stream, which are no
// Hydra protocol. `troupe run`'s sessions are titled like the daemon's:
// a person lists them in `troupe session list` beside the others.
var untitledOrigins = map[string]bool{"rpc": true, "json-stream": true}

// maxSeedTitle bounds a title taken from a prompt, in characters.
const maxSeedTitle = 200

// promoted is drafts with, before the first prompt a person sent (one not
// ancillary: cat's and a transformer's are) to an untitled session, hydra's
// title: the prompt's first line (unless that is a slash command or there
// is no text: the next prompt gets the chance). Doing it here, as the
// prompt is committed, titles every session alike whichever client sent
// the prompt. (The same prompt makes an undecided session interactive:
// the fold of prompt.queued.)
func (s *session) promoted(drafts []event.Draft) []event.Draft {
	st := s.f.st
	if st.Title != "" || untitledOrigins[st.OriginTransport] {
		return drafts // titled, or a front end that names its own
	}
	for i, d := range drafts {
		if d.Kind != event.PromptQueued {
			continue
		}
		var p event.PromptQueuedPayload
		if json.Unmarshal(d.Payload, &p) != nil || p.Ancillary {
			continue
		}
		title := seedTitle(p.Content)
		if title == "" {
			continue
		}
		change, err := event.NewDraft(event.SessionSettingsChanged, event.Settings{Title: &title})
		if err != nil {
			return drafts
		}
		return append(append(append([]event.Draft{}, drafts[:i]...), change), drafts[i:]...)
	}
	return drafts
}

// seedTitle is a prompt's first non-empty line of text, cut to
// maxSeedTitle characters; "" for a slash command or no text.
func seedTitle(content []event.Block) string {
	var text strings.Builder
	for _, b := range content {
		if b.Type == "text" || b.Type == "" {
			text.WriteString(b.Text)
		}
	}
	for line := range strings.Lines(text.String()) {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if strings.HasPrefix(line, "/") {
			return ""
		}
		if r := []rune(line); len(r) > maxSeedTitle {
			line = strings.TrimSpace(string(r[:maxSeedTitle]))
		}
		return line
	}
	return ""
}
