package rpc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
)

// Image is a prompt image in either of the two shapes hosts send:
// indusagi's {type, source:{type:"base64", mediaType, data}} or pi's
// {type, data, mimeType}.
type Image struct {
	MimeType string
	Data     string
}

// Command is one decoded command. Only the fields of its Type are set.
type Command struct {
	ID   json.RawMessage // echoed verbatim; nil when absent
	Type string

	Message           string
	Images            []Image
	StreamingBehavior string // steer | followUp
	ParentSession     string
	Provider, ModelID string
	Level, Mode       string
	Instructions      string
	Enabled           bool
	Bash              string
	OutputPath        string
	SessionPath       string
	EntryID           string
	Name              string
}

type fieldKind int

const (
	fString fieldKind = iota
	fBool
	fImages
)

type field struct {
	name     string
	kind     fieldKind
	required bool
	oneOf    []string
	set      func(c *Command, s string)
	setBool  func(c *Command, b bool)
}

func str(name string, required bool, set func(*Command, string), oneOf ...string) field {
	return field{name: name, kind: fString, required: required, set: set, oneOf: oneOf}
}

var (
	message  = str("message", true, func(c *Command, s string) { c.Message = s })
	images   = field{name: "images", kind: fImages}
	levels   = []string{"off", "minimal", "low", "medium", "high", "xhigh"}
	modes    = []string{"all", "one-at-a-time"}
	enabled  = field{name: "enabled", kind: fBool, required: true, setBool: func(c *Command, b bool) { c.Enabled = b }}
	noFields = []field{}
)

// commands is the protocol: every command and the fields it reads.
var commands = map[string][]field{
	"prompt":                  {message, images, str("streamingBehavior", false, func(c *Command, s string) { c.StreamingBehavior = s }, "steer", "followUp")},
	"steer":                   {message, images},
	"follow_up":               {message, images},
	"abort":                   noFields,
	"new_session":             {str("parentSession", false, func(c *Command, s string) { c.ParentSession = s })},
	"get_state":               noFields,
	"get_messages":            noFields,
	"set_model":               {str("provider", true, func(c *Command, s string) { c.Provider = s }), str("modelId", true, func(c *Command, s string) { c.ModelID = s })},
	"cycle_model":             noFields,
	"get_available_models":    noFields,
	"set_thinking_level":      {str("level", true, func(c *Command, s string) { c.Level = s }, levels...)},
	"cycle_thinking_level":    noFields,
	"set_steering_mode":       {str("mode", true, func(c *Command, s string) { c.Mode = s }, modes...)},
	"set_follow_up_mode":      {str("mode", true, func(c *Command, s string) { c.Mode = s }, modes...)},
	"compact":                 {str("customInstructions", false, func(c *Command, s string) { c.Instructions = s })},
	"set_auto_compaction":     {enabled},
	"set_auto_retry":          {enabled},
	"abort_retry":             noFields,
	"bash":                    {str("command", true, func(c *Command, s string) { c.Bash = s })},
	"abort_bash":              noFields,
	"get_session_stats":       noFields,
	"export_html":             {str("outputPath", false, func(c *Command, s string) { c.OutputPath = s })},
	"switch_session":          {str("sessionPath", true, func(c *Command, s string) { c.SessionPath = s })},
	"fork":                    {str("entryId", true, func(c *Command, s string) { c.EntryID = s })},
	"get_fork_messages":       noFields,
	"get_last_assistant_text": noFields,
	"set_session_name":        {str("name", true, func(c *Command, s string) { c.Name = s })},
	"get_commands":            noFields,
}

// Decode parses one input line. A line that is not a valid command yields
// the error response to write instead (with the id echoed when one could be
// read), so every input is either a command or an answer.
func Decode(line []byte) (Command, *Response) {
	if t := bytes.TrimLeft(line, " \t\r\n"); len(t) > 0 && t[0] != '{' && json.Valid(line) {
		return Command{}, parseError(nil, "a command must be a JSON object")
	}
	var obj map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(line))
	if err := dec.Decode(&obj); err != nil {
		return Command{}, parseError(nil, err.Error())
	}
	if dec.More() {
		return Command{}, parseError(nil, "trailing data after the JSON object")
	}
	if obj == nil {
		return Command{}, parseError(nil, "a command must be a JSON object")
	}
	c := Command{ID: echoID(obj["id"])}
	raw, ok := obj["type"]
	if !ok {
		return c, parseError(c.ID, `missing field "type"`)
	}
	if err := json.Unmarshal(raw, &c.Type); err != nil || c.Type == "" {
		return c, parseError(c.ID, `field "type" must be a non-empty string`)
	}
	fields, ok := commands[c.Type]
	if !ok {
		return c, Fail(c.ID, c.Type, "Unknown command: "+c.Type)
	}
	for _, f := range fields {
		if err := f.decode(&c, obj[f.name]); err != nil {
			return c, Fail(c.ID, c.Type, err.Error())
		}
	}
	return c, nil
}

// echoID keeps an id of any JSON type except null, verbatim.
func echoID(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	return raw
}

func (f field) decode(c *Command, raw json.RawMessage) error {
	if len(raw) == 0 || string(raw) == "null" {
		if f.required {
			return fmt.Errorf("missing field %q", f.name)
		}
		return nil
	}
	switch f.kind {
	case fBool:
		var b bool
		if err := json.Unmarshal(raw, &b); err != nil {
			return fmt.Errorf("field %q must be a boolean", f.name)
		}
		f.setBool(c, b)
	case fImages:
		imgs, err := decodeImages(raw)
		if err != nil {
			return err
		}
		c.Images = imgs
	default:
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return fmt.Errorf("field %q must be a string", f.name)
		}
		if len(f.oneOf) > 0 && !slices.Contains(f.oneOf, s) {
			return fmt.Errorf("field %q must be one of %v, not %q", f.name, f.oneOf, s)
		}
		f.set(c, s)
	}
	return nil
}

type wireImage struct {
	Type     string `json:"type"`
	Data     string `json:"data"`
	MimeType string `json:"mimeType"`
	Source   *struct {
		Type      string `json:"type"`
		MediaType string `json:"mediaType"`
		Data      string `json:"data"`
		URL       string `json:"url"`
	} `json:"source"`
}

func decodeImages(raw json.RawMessage) ([]Image, error) {
	var list []wireImage
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, fmt.Errorf(`field "images" must be an array of image objects`)
	}
	out := make([]Image, 0, len(list))
	for i, w := range list {
		img := Image{MimeType: w.MimeType, Data: w.Data}
		if s := w.Source; s != nil {
			if s.Type != "base64" {
				return nil, fmt.Errorf("images[%d]: only base64 sources are supported, not %q", i, s.Type)
			}
			img = Image{MimeType: s.MediaType, Data: s.Data}
		}
		if img.Data == "" || img.MimeType == "" {
			return nil, fmt.Errorf("images[%d]: needs data and a mime type", i)
		}
		out = append(out, img)
	}
	return out, nil
}
