package rpc

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/persistence/event"
)

// A pi/indusagi session file: a header line, then entries forming a tree
// by parentId; the last entry is the leaf, and the conversation is the path
// from the root to it.
type fileEntry struct {
	Type             string          `json:"type"`
	ID               string          `json:"id"`
	ParentID         *string         `json:"parentId"`
	Cwd              string          `json:"cwd"`
	Message          json.RawMessage `json:"message"`
	Summary          string          `json:"summary"`
	FirstKeptEntryID string          `json:"firstKeptEntryId"`
}

type fileMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCallID string          `json:"toolCallId"`
	ToolName   string          `json:"toolName"`
	Command    string          `json:"command"`
	Output     string          `json:"output"`
	ExitCode   int             `json:"exitCode"`
	Summary    string          `json:"summary"`
}

// sessionFile is what switch_session found at a path, read off the
// mailbox: a pi session file (isFile) with its conversation and the
// directory its session runs in, or not a file (a session of the store).
type sessionFile struct {
	path   string
	isFile bool
	msgs   []event.HistoryMessage
	cwd    string
	err    error
}

// readImport reads path when it is a session file: a regular file other
// than the store. Its session runs in the file's directory when that
// exists here, else in cwd; otherwise its tools would run nowhere.
func readImport(path, cwd, store string) sessionFile {
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() || path == store {
		return sessionFile{}
	}
	msgs, fileCwd, err := readSessionFile(path)
	if err != nil {
		return sessionFile{isFile: true, err: err}
	}
	if fi, err := os.Stat(fileCwd); fileCwd != "" && err == nil && fi.IsDir() {
		cwd = fileCwd
	}
	return sessionFile{path: path, isFile: true, msgs: msgs, cwd: cwd}
}

// importFile creates a session holding the conversation of a session
// file; then gets its id.
func (c *conn) importFile(f sessionFile, then func(string, error)) {
	id := sessions.NewID()
	a := c.async()
	a.Create(id, event.CreatedPayload{Cwd: f.cwd, OriginTransport: "rpc"}, func(err error) {
		if err != nil {
			then("", fmt.Errorf("import %s: %w", f.path, err))
			return
		}
		a.ImportHistory(id, event.HistoryImportedPayload{Source: f.path, Messages: f.msgs}, func(_ int64, err error) {
			if err != nil {
				then("", fmt.Errorf("import %s: %w", f.path, err))
				return
			}
			then(id, nil)
		})
	})
}

func readSessionFile(path string) ([]event.HistoryMessage, string, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, "", fmt.Errorf("open session file: %w", err)
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 64*1024), 64<<20)
	byID := map[string]fileEntry{}
	var leaf, cwd string
	first := true
	for sc.Scan() {
		var e fileEntry
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue // pi skips bad lines too
		}
		if first {
			first = false
			if e.Type != "session" {
				return nil, "", fmt.Errorf("%s is not a session file: no header line", path)
			}
			cwd = e.Cwd
			continue
		}
		if e.ID == "" {
			continue
		}
		byID[e.ID] = e
		leaf = e.ID
	}
	if err := sc.Err(); err != nil {
		return nil, "", fmt.Errorf("read session file: %w", err)
	}
	if first {
		return nil, "", fmt.Errorf("%s is empty", path)
	}
	var chain []fileEntry
	for id, n := leaf, 0; id != "" && n <= len(byID); n++ {
		e, ok := byID[id]
		if !ok {
			break
		}
		chain = append(chain, e)
		if e.ParentID == nil || *e.ParentID == id {
			break
		}
		id = *e.ParentID
	}
	var out []event.HistoryMessage
	for i := len(chain) - 1; i >= 0; i-- {
		e := chain[i]
		switch e.Type {
		case "message":
			if m, ok := historyOf(e.Message); ok {
				out = append(out, m)
			}
		case "compaction", "branch_summary":
			// The summary stands in for what came before it.
			out = []event.HistoryMessage{{Role: "user", Content: "The conversation history before this point was compacted into the following summary:\n\n<summary>\n" + e.Summary + "\n</summary>"}}
		}
	}
	return out, cwd, nil
}

func historyOf(raw json.RawMessage) (event.HistoryMessage, bool) {
	var m fileMessage
	if json.Unmarshal(raw, &m) != nil {
		return event.HistoryMessage{}, false
	}
	switch m.Role {
	case "user":
		return event.HistoryMessage{Role: "user", Content: contentText(m.Content)}, true
	case "assistant":
		h := event.HistoryMessage{Role: "assistant"}
		var blocks []struct {
			Type      string          `json:"type"`
			Text      string          `json:"text"`
			Thinking  string          `json:"thinking"`
			ID        string          `json:"id"`
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		}
		_ = json.Unmarshal(m.Content, &blocks)
		var texts []string
		for _, b := range blocks {
			switch b.Type {
			case "text":
				texts = append(texts, b.Text)
			case "thinking":
				h.Thinking += b.Thinking
			case "toolCall":
				h.ToolCalls = append(h.ToolCalls, event.ToolCall{ID: b.ID, Name: b.Name, Arguments: string(b.Arguments)})
			}
		}
		h.Content = strings.Join(texts, "")
		return h, true
	case "toolResult":
		return event.HistoryMessage{Role: "tool", Content: contentText(m.Content), ToolCallID: m.ToolCallID, ToolName: m.ToolName}, true
	case "bashExecution":
		return event.HistoryMessage{Role: "user", Content: fmt.Sprintf("Ran `%s`\n```\n%s\n```", m.Command, strings.TrimRight(m.Output, "\n"))}, true
	case "compactionSummary", "branchSummary":
		return event.HistoryMessage{Role: "user", Content: m.Summary}, true
	}
	return event.HistoryMessage{}, false
}

// contentText reads content that is a string or an array of text blocks.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &blocks)
	var texts []string
	for _, b := range blocks {
		if b.Type == "text" {
			texts = append(texts, b.Text)
		}
	}
	return strings.Join(texts, "\n")
}
