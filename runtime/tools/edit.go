package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/aymanbagabas/go-udiff"
)

// Edit replaces an exact string in a file and returns the unified diff.
type Edit struct{}

func (Edit) Name() string       { return "edit" }
func (Edit) Category() Category { return CategoryEdit }

func (Edit) Description() string {
	return "Replace an exact string in a file. old_string must match the file exactly, including " +
		"whitespace and indentation, and must occur exactly once unless replace_all is true. " +
		"Returns a unified diff of the change."
}

func (Edit) Parameters() json.RawMessage { return editParameters }

// editParameters is shared by every request that offers the tool: never modify it.
var editParameters = json.RawMessage(`{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "File to edit, absolute or relative to the working directory"},
    "old_string": {"type": "string", "description": "Exact text to replace"},
    "new_string": {"type": "string", "description": "Text to replace it with"},
    "replace_all": {"type": "boolean", "description": "Replace every occurrence instead of requiring exactly one (default false)"}
  },
  "required": ["path", "old_string", "new_string"]
}`)

func (Edit) Touches(call Call) []string { return touchedPath("edit", call) }

type editArgs struct {
	pathArg
	OldString  *string `json:"old_string"`
	NewString  *string `json:"new_string"`
	ReplaceAll bool    `json:"replace_all"`
	// pi's spelling, accepted for models trained on it.
	OldText *string `json:"oldText"`
	NewText *string `json:"newText"`
}

func (Edit) Run(ctx context.Context, call Call, _ func(string)) (Result, error) {
	cwd, err := call.workdir()
	if err != nil {
		return Result{}, fmt.Errorf("edit: %w", err)
	}
	if ctx.Err() != nil {
		return cancelledResult("edit"), nil
	}
	var args editArgs
	if res, ok := decodeArgs("edit", call.Args, &args); !ok {
		return res, nil
	}
	oldStr, newStr := cmpOrNil(args.OldString, args.OldText), cmpOrNil(args.NewString, args.NewText)
	switch {
	case args.path() == "":
		return missingArg("edit", "path"), nil
	case oldStr == nil:
		return missingArg("edit", "old_string"), nil
	case newStr == nil:
		return missingArg("edit", "new_string"), nil
	case *oldStr == "":
		return badArg("edit", "old_string", "must not be empty; use write to create a file"), nil
	case *oldStr == *newStr:
		return badArg("edit", "new_string", "is identical to old_string, so there is nothing to change"), nil
	}
	abs := resolvePath(cwd, args.path())
	return editFile(abs, displayPath(cwd, abs), *oldStr, *newStr, args.ReplaceAll), nil
}

func editFile(abs, shown, oldStr, newStr string, replaceAll bool) Result {
	data, err := os.ReadFile(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return errorResult("edit: file not found: " + shown)
	}
	if err != nil {
		return errorResult(fmt.Sprintf("edit: %v", err))
	}
	if looksBinary(data[:min(len(data), sniffLen)]) {
		return errorResult("edit: " + shown + " is a binary file")
	}
	content := string(data)
	n := strings.Count(content, oldStr)
	// Models write "\n" even when the file uses "\r\n"; match in the file's style.
	if n == 0 && strings.Contains(content, "\r\n") && !strings.Contains(oldStr, "\r") {
		crlfOld := strings.ReplaceAll(oldStr, "\n", "\r\n")
		if n = strings.Count(content, crlfOld); n > 0 {
			oldStr, newStr = crlfOld, strings.ReplaceAll(newStr, "\n", "\r\n")
		}
	}
	if n == 0 {
		return errorResult("edit: old_string not found in " + shown + "; it must match the file exactly, " +
			"including whitespace and indentation. Read the file again to see its current text.")
	}
	if n > 1 && !replaceAll {
		return errorResult(fmt.Sprintf("edit: old_string occurs %d times in %s; include more surrounding "+
			"lines to make it unique, or set replace_all to replace every occurrence", n, shown))
	}
	updated := strings.Replace(content, oldStr, newStr, 1)
	if replaceAll {
		updated = strings.ReplaceAll(content, oldStr, newStr)
	}

	perm := fs.FileMode(0o644)
	if fi, err := os.Stat(abs); err == nil {
		perm = fi.Mode().Perm()
	}
	if err := os.WriteFile(abs, []byte(updated), perm); err != nil {
		return errorResult(fmt.Sprintf("edit: %v", err))
	}
	diff, err := unifiedDiff(shown, content, updated)
	if err != nil {
		// The file is written; a missing diff must not turn success into failure.
		diff = fmt.Sprintf("Edited %s (%d replacement(s)); diff unavailable: %v", shown, n, err)
	}
	return Result{
		Output:     diff,
		OutputType: OutputDiff,
		Metadata:   map[string]any{MetaFilePath: abs},
	}
}

// unifiedDiff labels both sides the way git does ("a/path", "b/path").
func unifiedDiff(shown, before, after string) (string, error) {
	label := strings.TrimPrefix(filepath.ToSlash(shown), "/")
	edits := udiff.Lines(before, after)
	diff, err := udiff.ToUnified("a/"+label, "b/"+label, before, edits, udiff.DefaultContextLines)
	if err != nil {
		return "", fmt.Errorf("diff %s: %w", shown, err)
	}
	return diff, nil
}

func cmpOrNil(a, b *string) *string {
	if a != nil {
		return a
	}
	return b
}
