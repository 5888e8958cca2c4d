package tools

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
)

// Read returns a window of a text file's lines.
type Read struct{}

func (Read) Name() string       { return "read" }
func (Read) Category() Category { return CategoryInfo }

func (Read) Description() string { return readDescription }

// readDescription is formatted once, not per request.
var readDescription = fmt.Sprintf("Read a text file. Returns up to %d lines or %d KB starting at offset "+
	"(1-based line number); when more remains the output ends with the offset to continue from. "+
	"Relative paths resolve against the working directory.", MaxOutputLines, MaxOutputBytes/1024)

func (Read) Parameters() json.RawMessage { return readParameters }

// readParameters is shared by every request that offers the tool: never modify it.
var readParameters = json.RawMessage(`{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "File to read, absolute or relative to the working directory"},
    "offset": {"type": "integer", "minimum": 1, "description": "Line number to start reading from (1-based, default 1)"},
    "limit": {"type": "integer", "minimum": 1, "description": "Maximum number of lines to read (default and maximum 2000)"}
  },
  "required": ["path"]
}`)

type readArgs struct {
	pathArg
	Offset *int `json:"offset"`
	Limit  *int `json:"limit"`
}

func (Read) Run(ctx context.Context, call Call, _ func(string)) (Result, error) {
	cwd, err := call.workdir()
	if err != nil {
		return Result{}, fmt.Errorf("read: %w", err)
	}
	if ctx.Err() != nil {
		return cancelledResult("read"), nil
	}
	var args readArgs
	if res, ok := decodeArgs("read", call.Args, &args); !ok {
		return res, nil
	}
	if args.path() == "" {
		return missingArg("read", "path"), nil
	}
	offset, limit := 1, MaxOutputLines
	if args.Offset != nil {
		if *args.Offset < 1 {
			return badArg("read", "offset", "must be at least 1"), nil
		}
		offset = *args.Offset
	}
	if args.Limit != nil {
		if *args.Limit < 1 {
			return badArg("read", "limit", "must be at least 1"), nil
		}
		limit = min(*args.Limit, MaxOutputLines)
	}
	abs := resolvePath(cwd, args.path())
	return readWindow(ctx, abs, displayPath(cwd, abs), offset, limit), nil
}

// readWindow reads lines [offset, offset+limit) of abs within the byte budget.
func readWindow(ctx context.Context, abs, shown string, offset, limit int) Result {
	f, err := os.Open(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return errorResult("read: file not found: " + shown)
	}
	if err != nil {
		return errorResult(fmt.Sprintf("read: %v", err))
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		return errorResult("read: " + shown + " is a directory; use ls to list it")
	}
	r := bufio.NewReaderSize(f, 64*1024)
	head, _ := r.Peek(sniffLen)
	if looksBinary(head) {
		return errorResult("read: " + shown + " is a binary file")
	}

	var out strings.Builder
	total, first, last := 0, 0, 0
	full, cutLine := false, false
	for {
		line, long, ok, err := readLine(r, MaxOutputBytes+1)
		if err != nil && !errors.Is(err, io.EOF) {
			return errorResult(fmt.Sprintf("read: %s: %v", shown, err))
		}
		if !ok {
			break
		}
		total++
		// Counting the lines after the window reads the whole file; stay cancellable.
		if total%65536 == 0 && ctx.Err() != nil {
			return cancelledResult("read")
		}
		if total >= offset && total-offset < limit && !full {
			switch {
			case !long && out.Len()+len(line)+1 <= MaxOutputBytes:
				out.Write(line)
				out.WriteByte('\n')
			case out.Len() == 0: // one line alone is over budget: show its start
				out.Write(line[:runeFloor(line, MaxOutputBytes)])
				out.WriteByte('\n')
				cutLine, full = true, true
			default:
				full = true
			}
			if !full || cutLine {
				first = cmp.Or(first, total)
				last = total
			}
		}
		if err != nil {
			break
		}
	}

	if total == 0 {
		return textResult("[" + shown + " is empty]")
	}
	if offset > total {
		return errorResult(fmt.Sprintf("read: offset %d is past the end of %s (%d lines)", offset, shown, total))
	}
	text := strings.ToValidUTF8(out.String(), "\uFFFD")
	if cutLine {
		text += fmt.Sprintf("\n[line %d is longer than %d KB and was cut]", last, MaxOutputBytes/1024)
	}
	if last < total {
		text += fmt.Sprintf("\n[Showing lines %d-%d of %d. Use offset=%d to continue.]", first, last, total, last+1)
		return textResult(text)
	}
	return textResult(strings.TrimSuffix(text, "\n"))
}
