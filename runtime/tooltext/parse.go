package tooltext

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
)

// Parse splits a complete assistant reply into visible text, thinking and
// tool calls (spec section 4). Calls are taken from <tool_call> blocks; only
// when none of those is well formed from <|tool_call> blocks; then from
// <|tool_call|> blocks. Blocks that yield no call are listed in
// Result.Errors. It is the same as one Filter fed the whole reply.
func Parse(reply string) Result {
	var f Filter
	f.Push(reply)
	_, r := f.Close()
	return r
}

var errNoCall = errors.New(`expected {"name":"tool_name","args":{...}} or call:tool_name{...}`)

// parseInner reads a block's content in either form the spec names. name
// is returned, when known, even with an error so the report can name it.
func parseInner(inner []byte) (name, args string, err error) {
	s := bytes.TrimSpace(inner)
	switch {
	case len(s) > 0 && s[0] == '{':
		return parseJSONCall(s)
	case bytes.HasPrefix(s, []byte("call:")):
		return parseColonCall(s[len("call:"):])
	case len(s) == 0:
		return "", "", fmt.Errorf("empty block: %w", errNoCall)
	}
	return "", "", errNoCall
}

// parseJSONCall reads {"name":"tool","args":{...}}.
func parseJSONCall(s []byte) (name, args string, err error) {
	fields := make(map[string]json.RawMessage, 2)
	err = objectMembers(s, func(key string, value []byte) {
		fields[key] = bytes.Clone(value)
	})
	name, nameErr := callName(fields)
	if err != nil {
		return name, "", err
	}
	if nameErr != nil {
		return "", "", nameErr
	}
	raw, err := argumentsField(fields)
	if err != nil {
		return name, "", err
	}
	args, err = objectArguments(raw)
	return name, args, err
}

func callName(fields map[string]json.RawMessage) (string, error) {
	raw, ok := fields["name"]
	if !ok {
		return "", errors.New(`missing "name"`)
	}
	var name string
	if err := json.Unmarshal(raw, &name); err != nil {
		return "", errors.New(`"name" must be a string`)
	}
	name = strings.TrimSpace(name)
	if name == "" {
		return "", errors.New(`"name" is empty`)
	}
	return name, nil
}

// argumentsField picks the arguments out of a JSON call. The spec's key is
// "args"; "arguments" is the OpenAI and Hermes spelling models trained on
// those emit. Other keys are not guessed at: reporting them beats running
// the tool with no arguments, which is what hugind does.
func argumentsField(fields map[string]json.RawMessage) (json.RawMessage, error) {
	args, hasArgs := fields["args"]
	arguments, hasArguments := fields["arguments"]
	switch {
	case hasArgs && hasArguments:
		return nil, errors.New(`both "args" and "arguments" given`)
	case hasArguments:
		return arguments, nil
	case hasArgs:
		return args, nil
	}
	var extra []string
	for k := range fields {
		if k != "name" {
			extra = append(extra, fmt.Sprintf("%q", k))
		}
	}
	if len(extra) > 0 {
		slices.Sort(extra)
		return nil, fmt.Errorf(`missing "args" (found %s)`, strings.Join(extra, ", "))
	}
	return nil, nil
}

// objectArguments turns the canonical arguments value into a JSON object.
// A JSON string holding an object is accepted because models that imitate
// the OpenAI wire format encode arguments that way.
func objectArguments(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "{}", nil
	}
	switch raw[0] {
	case '{':
		return string(raw), nil
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", fmt.Errorf("decode string arguments: %w", err)
		}
		inner, err := normalizeJSON([]byte(s))
		if err != nil {
			return "", fmt.Errorf("arguments string: %w", err)
		}
		if inner[0] != '{' {
			return "", errors.New("arguments must be a JSON object")
		}
		return string(inner), nil
	}
	return "", errors.New("arguments must be a JSON object")
}

// parseColonCall reads the Gemma form tool_name{...} (after "call:"), whose
// braces hold the arguments object itself.
func parseColonCall(s []byte) (name, args string, err error) {
	brace := bytes.IndexByte(s, '{')
	if brace < 0 {
		return "", "", fmt.Errorf("call:%s needs {...} arguments", bytes.TrimSpace(s))
	}
	name = string(bytes.TrimSpace(s[:brace]))
	if name == "" {
		return "", "", errors.New("missing tool name after call:")
	}
	if strings.ContainsFunc(name, unicode.IsSpace) {
		return "", "", fmt.Errorf("invalid tool name %q", name)
	}
	canon, err := normalizeJSON(s[brace:])
	if err != nil {
		return name, "", fmt.Errorf("arguments: %w", err)
	}
	return name, string(canon), nil
}

func wrapMalformed(err error) error {
	return fmt.Errorf("%w: %w", ErrMalformed, err)
}

func unterminated(close string) error {
	return fmt.Errorf("%w: missing %s", ErrUnterminated, close)
}
