package jsonstream

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Command types a client may send.
const (
	CmdMessage     = "message"
	CmdStop        = "stop"
	CmdToolApprove = "tool_approve"
	CmdToolDeny    = "tool_deny"
	CmdInitHistory = "init_history"
	CmdSetMode     = "set_mode"
	CmdPing        = "ping"
)

// Command is one decoded client line. Only the fields of its Type are set.
type Command struct {
	Type   string
	MsgID  string   // message
	Input  string   // message
	Files  []string // message
	CallID string   // tool_approve, tool_deny
	Always bool     // tool_approve: scope "always"
	Reason string   // tool_deny
	Text   string   // init_history
	Mode   string   // set_mode
}

// DecodeError is a line that is not a valid command. MsgID is the line's
// msg_id when one could be read, so the protocol_error can echo it.
type DecodeError struct {
	MsgID   string
	Message string
}

func (e *DecodeError) Error() string { return e.Message }

// Event is the protocol_error event for e.
func (e *DecodeError) Event() Error { return NewError(e.MsgID, CodeProtocol, e.Message, false) }

// Decode parses one line. Every input either yields a Command or a
// *DecodeError; unknown fields are ignored, as the spec's versioning rule
// lets clients send fields a minor version added.
func Decode(line []byte) (Command, *DecodeError) {
	if len(bytes.TrimSpace(line)) == 0 {
		return Command{}, &DecodeError{Message: "empty line: expected a JSON object"}
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(line, &fields); err != nil || fields == nil {
		return Command{}, &DecodeError{Message: "malformed JSON: expected one JSON object per line"}
	}
	d := decoder{fields: fields}
	// Read msg_id first so that any later error can echo it.
	d.msgID, _ = d.optString("msg_id")
	typ, err := d.str("type", true)
	if err != nil {
		return Command{}, err
	}
	c := Command{Type: typ}
	switch typ {
	case CmdMessage:
		err = d.message(&c)
	case CmdStop, CmdPing:
	case CmdToolApprove:
		err = d.approve(&c)
	case CmdToolDeny:
		if c.CallID, err = d.nonEmpty("call_id"); err == nil {
			c.Reason, err = d.str("reason", false)
		}
	case CmdInitHistory:
		c.Text, err = d.str("text", true)
	case CmdSetMode:
		err = d.mode(&c)
	default:
		return Command{}, d.fail("Unknown command type: %s", typ)
	}
	if err != nil {
		return Command{}, err
	}
	return c, nil
}

type decoder struct {
	fields map[string]json.RawMessage
	msgID  string
}

func (d *decoder) fail(format string, args ...any) *DecodeError {
	return &DecodeError{MsgID: d.msgID, Message: fmt.Sprintf(format, args...)}
}

// optString reads a string field; ok is false when it is absent, null or
// not a string.
func (d *decoder) optString(name string) (string, bool) {
	raw, ok := d.fields[name]
	if !ok {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

func (d *decoder) str(name string, required bool) (string, *DecodeError) {
	raw, ok := d.fields[name]
	if !ok || string(raw) == "null" {
		if required {
			return "", d.fail("missing field %q", name)
		}
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", d.fail("field %q must be a string", name)
	}
	return s, nil
}

func (d *decoder) nonEmpty(name string) (string, *DecodeError) {
	s, err := d.str(name, true)
	if err == nil && strings.TrimSpace(s) == "" {
		err = d.fail("field %q must not be empty", name)
	}
	return s, err
}

func (d *decoder) message(c *Command) *DecodeError {
	var err *DecodeError
	if c.MsgID, err = d.nonEmpty("msg_id"); err != nil {
		return err
	}
	// aionrs itself reads "content"; the spec says "input". Both are
	// accepted, input first.
	name := "input"
	if _, ok := d.fields["input"]; !ok {
		if _, ok := d.fields["content"]; ok {
			name = "content"
		}
	}
	if c.Input, err = d.str(name, true); err != nil {
		return err
	}
	if raw, ok := d.fields["files"]; ok && string(raw) != "null" {
		if json.Unmarshal(raw, &c.Files) != nil {
			return d.fail("field \"files\" must be an array of strings")
		}
	}
	return nil
}

func (d *decoder) approve(c *Command) *DecodeError {
	var err *DecodeError
	if c.CallID, err = d.nonEmpty("call_id"); err != nil {
		return err
	}
	scope, err := d.str("scope", false)
	if err != nil {
		return err
	}
	switch scope {
	case "", "once":
	case "always":
		c.Always = true
	default:
		return d.fail("field \"scope\" must be \"once\" or \"always\", not %q", scope)
	}
	return nil
}

func (d *decoder) mode(c *Command) *DecodeError {
	var err *DecodeError
	if c.Mode, err = d.str("mode", true); err != nil {
		return err
	}
	if !slices.Contains(Modes, c.Mode) {
		return d.fail("field \"mode\" must be one of %s, not %q", strings.Join(Modes, ", "), c.Mode)
	}
	return nil
}
