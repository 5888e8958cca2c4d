package rpc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// The session file get_state and get_session_stats name (sessionFile):
// troupe keeps each session in its store, so there is no file pi's way;
// instead, at the end of every run of the session this connection is on,
// it writes the conversation as a pi session file (a header line, then one
// message entry per message, each the parent of the next: the format
// switch_session imports) to Config.SessionFileDir/<session id>.jsonl.
// A user can open it; a host can pass it back to switch_session, which
// recognises its own files by their folder and switches to the stored
// session (with its whole log: tool calls, settings, forks) rather than
// importing the copy. With --no-session there is none, as in pi.

// sessionFile is the current session's file, nil with no file folder.
func (c *conn) sessionFile() *string {
	if c.cfg.NoSession || c.cfg.SessionFileDir == "" {
		return nil
	}
	s := filepath.Join(c.cfg.SessionFileDir, c.cur.id+".jsonl")
	return &s
}

// ownSessionFile is the session id of a path naming one of this store's
// session files, "" for any other path.
func (c *conn) ownSessionFile(path string) string {
	if c.cfg.SessionFileDir == "" || !filepath.IsAbs(path) {
		return ""
	}
	dir, base := filepath.Split(filepath.Clean(path))
	id, ok := strings.CutSuffix(base, ".jsonl")
	if !ok || id == "" || filepath.Clean(dir) != filepath.Clean(c.cfg.SessionFileDir) {
		return ""
	}
	return id
}

// writeSessionFile writes the current session's file from the fold, off
// the mailbox; writes are one at a time, and a run that ends while one is
// under way is written after it, so the file ends as the last run left it.
func (c *conn) writeSessionFile() {
	path := c.sessionFile()
	if path == nil {
		return
	}
	if c.fileWriting {
		c.fileAgain = true
		return
	}
	data, err := sessionFileBytes(c.cur.id, c.cur.fold.Cwd, c.cur.fold.messages, time.Now())
	if err != nil {
		c.cfg.Log.Warn("session file not written", "session", c.cur.id, "error", err)
		return
	}
	c.fileWriting = true
	done := c.begin()
	offload(c, func() error { return writeAtomic(*path, data) }, func(err error) {
		done(nil)
		c.fileWriting = false
		if err != nil {
			c.cfg.Log.Warn("session file not written", "path", *path, "error", err)
		}
		if c.fileAgain {
			c.fileAgain = false
			c.writeSessionFile()
		}
	})
}

type fileHeader struct {
	Type      string `json:"type"`
	Version   int    `json:"version"`
	ID        string `json:"id"`
	Timestamp string `json:"timestamp"`
	Cwd       string `json:"cwd"`
}

type fileMessageEntry struct {
	Type      string  `json:"type"`
	ID        string  `json:"id"`
	ParentID  *string `json:"parentId"`
	Timestamp string  `json:"timestamp"`
	Message   any     `json:"message"`
}

// sessionFileBytes is a pi session file of msgs: pi's header, then the
// messages as a chain of entries.
func sessionFileBytes(id, cwd string, msgs []any, now time.Time) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	stamp := now.UTC().Format("2006-01-02T15:04:05.000Z")
	if err := enc.Encode(fileHeader{Type: "session", Version: 3, ID: id, Timestamp: stamp, Cwd: cwd}); err != nil {
		return nil, fmt.Errorf("encode session file header: %w", err)
	}
	var parent *string
	for i, m := range msgs {
		entry := fmt.Sprintf("m%d", i+1)
		if err := enc.Encode(fileMessageEntry{Type: "message", ID: entry, ParentID: parent, Timestamp: stamp, Message: m}); err != nil {
			return nil, fmt.Errorf("encode session file entry %d: %w", i+1, err)
		}
		parent = &entry
	}
	return b.Bytes(), nil
}

// writeAtomic writes data to path through a file beside it renamed into
// place, so a reader never sees half a file.
func writeAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// SessionFileFolder is the folder of the store's home the session files
// are kept in.
const SessionFileFolder = "rpc-sessions"
