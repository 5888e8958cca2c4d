package llmserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// TagFormat is the pair of tags around a tool call written as text.
type TagFormat string

const (
	// FormatQwen is <tool_call>...</tool_call>.
	FormatQwen TagFormat = "qwen"
	// FormatGemma is <|tool_call>...<tool_call|>.
	FormatGemma TagFormat = "gemma"
	// FormatPipe is <|tool_call|>...<|/tool_call|>.
	FormatPipe TagFormat = "pipe"
)

// InnerForm is how the call is written between the tags.
type InnerForm string

const (
	// InnerJSON is {"name":"run","args":{"cmd":"ls"}}.
	InnerJSON InnerForm = "json"
	// InnerCall is call:run{cmd: "ls"}, keys bare as gemma models write them.
	InnerCall InnerForm = "call"
	// InnerCallJSON is call:run{"cmd": "ls"}, keys quoted.
	InnerCallJSON InnerForm = "call_json"
)

func (f TagFormat) tags() (open, close string, err error) {
	switch f {
	case FormatQwen:
		return "<tool_call>", "</tool_call>", nil
	case FormatGemma:
		return "<|tool_call>", "<tool_call|>", nil
	case FormatPipe:
		return "<|tool_call|>", "<|/tool_call|>", nil
	}
	return "", "", fmt.Errorf("unknown tag format %q (want qwen, gemma or pipe)", string(f))
}

// RenderTextToolCall returns the exact text of a tool call in the given tag
// format and inner form, for building content by hand. args is marshalled
// to JSON and must be an object (nil means {}); a json.RawMessage keeps its
// key order. Values inside the call forms are compact JSON.
func RenderTextToolCall(format TagFormat, inner InnerForm, name string, args any) (string, error) {
	raw, err := argsJSON(args)
	if err != nil {
		return "", err
	}
	return renderTagged(TaggedCall{Format: format, Inner: inner, Name: name, Args: raw})
}

func renderTagged(c TaggedCall) (string, error) {
	open, closeTag, err := c.Format.tags()
	if err != nil {
		return "", err
	}
	if c.Name == "" {
		return "", errors.New("text tool call has no name")
	}
	members, err := objectMembers(c.Args)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString(open)
	switch c.Inner {
	case InnerJSON, "":
		name, err := marshal(c.Name)
		if err != nil {
			return "", err
		}
		b.WriteString(`{"name":`)
		b.Write(name)
		b.WriteString(`,"args":{`)
		for i, m := range members {
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(m.quotedKey)
			b.WriteByte(':')
			b.Write(m.value)
		}
		b.WriteString("}}")
	case InnerCall, InnerCallJSON:
		b.WriteString("call:")
		b.WriteString(c.Name)
		b.WriteByte('{')
		for i, m := range members {
			if i > 0 {
				b.WriteString(", ")
			}
			if c.Inner == InnerCall {
				b.WriteString(m.key)
			} else {
				b.Write(m.quotedKey)
			}
			b.WriteString(": ")
			b.Write(m.value)
		}
		b.WriteByte('}')
	default:
		return "", fmt.Errorf("unknown inner form %q (want json, call or call_json)", string(c.Inner))
	}
	b.WriteString(closeTag)
	return b.String(), nil
}

// argsJSON turns a Go value into the JSON of tool arguments.
func argsJSON(args any) (json.RawMessage, error) {
	switch v := args.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		return v, nil
	}
	raw, err := marshal(args)
	if err != nil {
		return nil, fmt.Errorf("marshal tool arguments: %w", err)
	}
	return raw, nil
}

type member struct {
	key       string
	quotedKey []byte
	value     []byte
}

// objectMembers walks a JSON object token by token because decoding into a
// map would lose the key order the script author wrote.
func objectMembers(raw json.RawMessage) ([]member, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("tool arguments: %w", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("tool arguments must be a JSON object, got %s", raw)
	}
	var out []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("tool arguments: %w", err)
		}
		key, _ := tok.(string)
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil, fmt.Errorf("tool arguments: %w", err)
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, value); err != nil {
			return nil, fmt.Errorf("tool arguments: %w", err)
		}
		quoted, err := marshal(key)
		if err != nil {
			return nil, err
		}
		out = append(out, member{key: key, quotedKey: quoted, value: compact.Bytes()})
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("tool arguments: %w", err)
	}
	if dec.More() {
		return nil, errors.New("tool arguments: trailing data after the object")
	}
	return out, nil
}

// splitText cuts s into pieces of at most n bytes without cutting a UTF-8
// sequence; a rune longer than n gets a piece of its own.
func splitText(s string, n int) []string {
	if n <= 0 || len(s) <= n {
		return []string{s}
	}
	var out []string
	for len(s) > 0 {
		end := min(n, len(s))
		for end < len(s) && end > 0 && !utf8Start(s[end]) {
			end--
		}
		if end == 0 {
			end = 1
			for end < len(s) && !utf8Start(s[end]) {
				end++
			}
		}
		out = append(out, s[:end])
		s = s[end:]
	}
	return out
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }
