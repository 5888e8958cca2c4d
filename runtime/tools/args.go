package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
)

// decodeArgs fills v from the model's raw arguments. When they are unusable
// it returns ok=false and the Result to hand back, naming the bad field, so
// the model can correct itself on the next turn.
func decodeArgs(tool string, raw json.RawMessage, v any) (Result, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		raw = []byte("{}")
	}
	// Some models double-encode: {"args": "{\"path\": ...}"}.
	if raw[0] == '"' {
		var inner string
		if err := json.Unmarshal(raw, &inner); err == nil {
			raw = bytes.TrimSpace([]byte(inner))
		}
	}
	err := json.Unmarshal(raw, v)
	if err == nil {
		return Result{}, true
	}
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		if typeErr.Field == "" {
			return errorResult(fmt.Sprintf("%s: arguments must be a JSON object, got %s", tool, typeErr.Value)), false
		}
		return errorResult(fmt.Sprintf("%s: invalid argument %q: expected %s, got %s",
			tool, typeErr.Field, jsonTypeName(typeErr.Type), typeErr.Value)), false
	}
	return errorResult(fmt.Sprintf("%s: arguments are not valid JSON: %v", tool, err)), false
}

// missingArg is the Result for a required argument that is absent or empty.
func missingArg(tool, field string) Result {
	return errorResult(fmt.Sprintf("%s: missing required argument %q", tool, field))
}

// badArg is the Result for an argument with an unusable value.
func badArg(tool, field, why string) Result {
	return errorResult(fmt.Sprintf("%s: invalid argument %q: %s", tool, field, why))
}

func jsonTypeName(t reflect.Type) string {
	if t == nil {
		return "a different type"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.Map, reflect.Struct:
		return "object"
	}
	return t.String()
}

// pathArg is embedded in the arguments of tools that take a path. Models
// trained on Claude Code send file_path; accept it as a synonym.
type pathArg struct {
	Path     string `json:"path"`
	FilePath string `json:"file_path"`
}

func (p pathArg) path() string {
	if p.Path != "" {
		return p.Path
	}
	return p.FilePath
}
