package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// Write creates or overwrites a file with the given content.
type Write struct{}

func (Write) Name() string       { return "write" }
func (Write) Category() Category { return CategoryEdit }

func (Write) Description() string {
	return "Create or overwrite a file with the given content, creating parent directories as needed. " +
		"Relative paths resolve against the working directory. Prefer edit for changing part of an existing file."
}

func (Write) Parameters() json.RawMessage { return writeParameters }

// writeParameters is shared by every request that offers the tool: never modify it.
var writeParameters = json.RawMessage(`{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "File to write, absolute or relative to the working directory"},
    "content": {"type": "string", "description": "The complete new content of the file"}
  },
  "required": ["path", "content"]
}`)

func (Write) Touches(call Call) []string { return touchedPath("write", call) }

type writeArgs struct {
	pathArg
	Content *string `json:"content"`
}

func (Write) Run(ctx context.Context, call Call, _ func(string)) (Result, error) {
	cwd, err := call.workdir()
	if err != nil {
		return Result{}, fmt.Errorf("write: %w", err)
	}
	if ctx.Err() != nil {
		return cancelledResult("write"), nil
	}
	var args writeArgs
	if res, ok := decodeArgs("write", call.Args, &args); !ok {
		return res, nil
	}
	if args.path() == "" {
		return missingArg("write", "path"), nil
	}
	if args.Content == nil {
		return missingArg("write", "content"), nil
	}
	abs := resolvePath(cwd, args.path())
	shown := displayPath(cwd, abs)
	if fi, err := os.Stat(abs); err == nil && fi.IsDir() {
		return errorResult("write: " + shown + " is a directory"), nil
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return errorResult(fmt.Sprintf("write: create parent directory: %v", err)), nil
	}
	// Overwriting in place keeps an existing file's mode, owner and hard links.
	if err := os.WriteFile(abs, []byte(*args.Content), 0o644); err != nil {
		return errorResult(fmt.Sprintf("write: %v", err)), nil
	}
	res := textResult(fmt.Sprintf("Wrote %d bytes to %s", len(*args.Content), shown))
	res.Metadata = map[string]any{MetaFilePath: abs}
	return res, nil
}
