package acprec

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Line is one message the tee saw: From "troupe" (the daemon wrote it to
// the agent's stdin) or "agent" (the agent wrote it to its stdout).
type Line struct {
	From string          `json:"from"`
	Msg  json.RawMessage `json:"msg,omitempty"`
	Text string          `json:"text,omitempty"`
}

// rpc is the JSON-RPC envelope of a Line's message.
type rpc struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
}

func (l Line) rpc() rpc {
	var r rpc
	_ = json.Unmarshal(l.Msg, &r)
	return r
}

// Method is the message's method ("" for an answer).
func (l Line) Method() string { return l.rpc().Method }

// Recording is one start of the agent: every message, in order.
type Recording struct {
	Name  string // start-N
	Lines []Line
}

// ReadRecordings reads dir's start-N.jsonl files in start order.
func ReadRecordings(dir string) ([]Recording, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "start-*.jsonl"))
	if err != nil {
		return nil, fmt.Errorf("recordings in %s: %w", dir, err)
	}
	sort.Slice(paths, func(i, j int) bool { return startNumber(paths[i]) < startNumber(paths[j]) })
	out := make([]Recording, 0, len(paths))
	for _, p := range paths {
		r, err := readRecording(p)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

func startNumber(p string) int {
	var n int
	_, _ = fmt.Sscanf(filepath.Base(p), "start-%d.jsonl", &n)
	return n
}

func readRecording(path string) (Recording, error) {
	f, err := os.Open(path)
	if err != nil {
		return Recording{}, fmt.Errorf("recording: %w", err)
	}
	defer f.Close()
	r := Recording{Name: strings.TrimSuffix(filepath.Base(path), ".jsonl")}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for n := 1; sc.Scan(); n++ {
		var l Line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return Recording{}, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		if l.From != "troupe" && l.From != "agent" {
			return Recording{}, fmt.Errorf("%s:%d: from %q", path, n, l.From)
		}
		r.Lines = append(r.Lines, l)
	}
	if err := sc.Err(); err != nil {
		return Recording{}, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// Normaliser rewrites what differs from run to run: the directories a run
// made (Paths, longest first) become fixed names.
type Normaliser struct {
	Paths map[string]string
	// CutAgentStrings, when positive, shortens every string value longer
	// than it in the agent's messages when a recording is written (qwen-code
	// sends its bundled skills' documents, half a megabyte, in an
	// available_commands_update's _meta): troupe records and forwards them
	// and sends the agent nothing made of them, so the replay needs only
	// their place.
	CutAgentStrings int
}

// Bytes applies n to one message's text.
func (n Normaliser) Bytes(b []byte) []byte {
	keys := make([]string, 0, len(n.Paths))
	for k := range n.Paths {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return len(keys[i]) > len(keys[j]) })
	s := string(b)
	for _, k := range keys {
		s = strings.ReplaceAll(s, k, n.Paths[k])
	}
	return []byte(s)
}

// WriteRecordings copies src's recordings into dst, normalised, replacing
// what dst held.
func WriteRecordings(src, dst string, n Normaliser) error {
	rs, err := ReadRecordings(src)
	if err != nil {
		return err
	}
	old, _ := filepath.Glob(filepath.Join(dst, "start-*.jsonl"))
	for _, p := range old {
		if err := os.Remove(p); err != nil {
			return fmt.Errorf("old recording: %w", err)
		}
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return fmt.Errorf("recordings: %w", err)
	}
	for _, r := range rs {
		var b strings.Builder
		for _, l := range r.Lines {
			l.Msg = n.Bytes(l.Msg)
			if l.From == "agent" && n.CutAgentStrings > 0 {
				if l.Msg, err = cutStrings(l.Msg, n.CutAgentStrings); err != nil {
					return fmt.Errorf("%s: %w", r.Name, err)
				}
			}
			enc, err := json.Marshal(l)
			if err != nil {
				return fmt.Errorf("%s: %w", r.Name, err)
			}
			b.Write(enc)
			b.WriteByte('\n')
		}
		if err := os.WriteFile(filepath.Join(dst, r.Name+".jsonl"), []byte(b.String()), 0o644); err != nil {
			return fmt.Errorf("%s: %w", r.Name, err)
		}
	}
	return nil
}

// cutStrings shortens msg's string values longer than max to their first
// 64 bytes and a note of the length cut; a message that is not JSON is
// kept.
func cutStrings(msg json.RawMessage, max int) (json.RawMessage, error) {
	if len(msg) <= max {
		return msg, nil
	}
	dec := json.NewDecoder(strings.NewReader(string(msg)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return msg, nil
	}
	b, err := json.Marshal(cutValue(v, max))
	if err != nil {
		return nil, fmt.Errorf("cut strings: %w", err)
	}
	return b, nil
}

func cutValue(v any, max int) any {
	switch x := v.(type) {
	case string:
		if len(x) > max {
			head := strings.ToValidUTF8(x[:64], "")
			return fmt.Sprintf("%s…[cut: %d bytes]", head, len(x))
		}
	case map[string]any:
		for k, e := range x {
			x[k] = cutValue(e, max)
		}
	case []any:
		for i, e := range x {
			x[i] = cutValue(e, max)
		}
	}
	return v
}
