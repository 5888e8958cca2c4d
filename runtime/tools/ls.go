package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// maxLsEntries bounds how many entries ls returns.
const maxLsEntries = 1000

// Ls lists a directory.
type Ls struct{}

func (Ls) Name() string       { return "ls" }
func (Ls) Category() Category { return CategoryInfo }

func (Ls) Description() string { return lsDescription }

// lsDescription is formatted once, not per request.
var lsDescription = fmt.Sprintf("List a directory's entries in alphabetical order, including hidden ones; "+
	"directories end with \"/\". Returns at most %d entries.", maxLsEntries)

func (Ls) Parameters() json.RawMessage { return lsParameters }

// lsParameters is shared by every request that offers the tool: never modify it.
var lsParameters = json.RawMessage(`{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "Directory to list (default: the working directory)"}
  }
}`)

func (Ls) Run(ctx context.Context, call Call, _ func(string)) (Result, error) {
	cwd, err := call.workdir()
	if err != nil {
		return Result{}, fmt.Errorf("ls: %w", err)
	}
	if ctx.Err() != nil {
		return cancelledResult("ls"), nil
	}
	var args pathArg
	if res, ok := decodeArgs("ls", call.Args, &args); !ok {
		return res, nil
	}
	dir := cwd
	if args.path() != "" {
		dir = resolvePath(cwd, args.path())
	}
	if res, ok := checkDir("ls", cwd, dir); !ok {
		return res, nil
	}
	entries, err := os.ReadDir(dir) // sorted by name
	if err != nil {
		return errorResult(fmt.Sprintf("ls: %v", err)), nil
	}
	if len(entries) == 0 {
		return textResult("[" + displayPath(cwd, dir) + " is empty]"), nil
	}
	var b strings.Builder
	for i, e := range entries {
		if i == maxLsEntries {
			fmt.Fprintf(&b, "[listing truncated: showing %d of %d entries]\n", maxLsEntries, len(entries))
			break
		}
		b.WriteString(e.Name())
		if isDirEntry(dir, e) {
			b.WriteByte('/')
		}
		b.WriteByte('\n')
	}
	return textResult(strings.TrimSuffix(b.String(), "\n")), nil
}

// isDirEntry follows a symbolic link, so a linked directory lists as one.
func isDirEntry(dir string, e os.DirEntry) bool {
	if e.IsDir() {
		return true
	}
	if e.Type()&os.ModeSymlink == 0 {
		return false
	}
	fi, err := os.Stat(filepath.Join(dir, e.Name()))
	return err == nil && fi.IsDir()
}
