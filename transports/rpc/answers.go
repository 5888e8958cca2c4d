package rpc

import (
	"cmp"
	"path/filepath"
	"strings"

	"github.com/samber/lo"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/transports/projection"
)

// answer serves the commands answered from the fold alone.
func (c *conn) answer(cmd Command) *Response {
	f := c.cur.fold
	switch cmd.Type {
	case "get_state":
		return OK(cmd.ID, cmd.Type, c.state())
	case "get_messages":
		return OK(cmd.ID, cmd.Type, map[string]any{"messages": nonNil(f.messages)})
	case "get_fork_messages":
		return OK(cmd.ID, cmd.Type, map[string]any{"messages": forkMessages(f.Forks)})
	case "get_last_assistant_text":
		return OK(cmd.ID, cmd.Type, map[string]any{"text": f.lastText})
	case "get_session_stats":
		return OK(cmd.ID, cmd.Type, c.stats())
	case "get_available_models":
		var out []*modelJSON
		for _, r := range c.models.cat.List() {
			if o, err := c.models.object(r.Provider, r.ID); err == nil {
				out = append(out, o)
			}
		}
		if out == nil {
			out = []*modelJSON{}
		}
		return OK(cmd.ID, cmd.Type, map[string]any{"models": out})
	case "get_commands":
		// troupe has no extension commands or prompt templates to list.
		return OK(cmd.ID, cmd.Type, map[string]any{"commands": []any{}})
	}
	return Fail(cmd.ID, cmd.Type, "Unknown command: "+cmd.Type)
}

// forkJSON is a user message a fork can start from, as pi lists them.
type forkJSON struct {
	EntryID string `json:"entryId"`
	Text    string `json:"text"`
}

func forkMessages(forks []projection.ForkPoint) []forkJSON {
	return lo.Map(forks, func(p projection.ForkPoint, _ int) forkJSON { return forkJSON{EntryID: p.EntryID, Text: p.Text} })
}

func nonNil(v []any) []any {
	if v == nil {
		return []any{}
	}
	return v
}

type stateJSON struct {
	Model                 *modelJSON `json:"model"`
	ThinkingLevel         string     `json:"thinkingLevel"`
	IsStreaming           bool       `json:"isStreaming"`
	IsCompacting          bool       `json:"isCompacting"`
	SteeringMode          string     `json:"steeringMode"`
	FollowUpMode          string     `json:"followUpMode"`
	SessionFile           *string    `json:"sessionFile,omitempty"`
	SessionID             string     `json:"sessionId"`
	SessionName           string     `json:"sessionName,omitempty"`
	AutoCompactionEnabled bool       `json:"autoCompactionEnabled"`
	MessageCount          int        `json:"messageCount"`
	PendingMessageCount   int        `json:"pendingMessageCount"`
}

func (c *conn) state() stateJSON {
	f := c.cur.fold
	p, id := c.models.current(f.Settings)
	model, _ := c.models.object(p, id)
	level := c.models.thinking(f.Settings, c.cfg.Thinking)
	return stateJSON{
		Model: model, ThinkingLevel: level, IsStreaming: c.streaming(), IsCompacting: f.Compaction != nil,
		SteeringMode: cmp.Or(lo.FromPtr(f.Settings.SteeringMode), event.QueueOneAtATime), FollowUpMode: cmp.Or(lo.FromPtr(f.Settings.FollowUpMode), event.QueueOneAtATime),
		SessionFile: c.sessionFile(), SessionID: c.cur.id, SessionName: f.Title,
		AutoCompactionEnabled: lo.FromPtrOr(f.Settings.AutoCompaction, true),
		MessageCount:          len(f.messages), PendingMessageCount: f.Pending.Len(),
	}
}

type tokensJSON struct {
	Input      int64 `json:"input"`
	Output     int64 `json:"output"`
	CacheRead  int64 `json:"cacheRead"`
	CacheWrite int64 `json:"cacheWrite"`
	Total      int64 `json:"total"`
}

type statsJSON struct {
	SessionFile       *string    `json:"sessionFile,omitempty"`
	SessionID         string     `json:"sessionId"`
	UserMessages      int        `json:"userMessages"`
	AssistantMessages int        `json:"assistantMessages"`
	ToolCalls         int        `json:"toolCalls"`
	ToolResults       int        `json:"toolResults"`
	TotalMessages     int        `json:"totalMessages"`
	Tokens            tokensJSON `json:"tokens"`
	Cost              float64    `json:"cost"`
}

func (c *conn) stats() statsJSON {
	f := c.cur.fold
	u := f.Usage
	p, id := c.models.current(f.Settings)
	cost := u.Cost
	if cost == 0 {
		cost = c.models.price(p, id, u).Total
	}
	return statsJSON{
		SessionFile: c.sessionFile(), SessionID: c.cur.id,
		UserMessages: f.stats.User, AssistantMessages: f.stats.Assistant, ToolCalls: f.stats.ToolCalls, ToolResults: f.stats.ToolResults,
		TotalMessages: f.stats.User + f.stats.Assistant + f.stats.ToolResults,
		Tokens:        tokensJSON{Input: u.Input, Output: u.Output, CacheRead: u.CacheRead, CacheWrite: u.CacheWrite, Total: u.Input + u.Output + u.CacheRead + u.CacheWrite},
		Cost:          cost,
	}
}

// sessionIDOf reads a session id out of what a host passes back: an id,
// a session file's name (<id>.jsonl), or the "<store>#<id>" locator older
// troupes reported.
func sessionIDOf(s string) string {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '#' {
			return s[i+1:]
		}
	}
	return strings.TrimSuffix(filepath.Base(s), ".jsonl")
}
