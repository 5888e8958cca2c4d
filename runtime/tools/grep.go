package tools

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

const (
	// maxGrepMatches bounds how many matching lines grep returns.
	maxGrepMatches = 200
	// maxGrepLineBytes is how much of one line is searched: enough for any
	// source line, bounded for minified or generated files.
	maxGrepLineBytes = 1 << 20
)

// Grep searches file contents with a regular expression.
type Grep struct{}

func (Grep) Name() string       { return "grep" }
func (Grep) Category() Category { return CategoryInfo }

func (Grep) Description() string { return grepDescription }

// grepDescription is formatted once, not per request.
var grepDescription = fmt.Sprintf("Search file contents for a regular expression (Go RE2 syntax). Returns "+
	"matching lines as path:line:text, at most %d of them. Searches a file, or a directory "+
	"recursively skipping binary files, .git and node_modules; glob filters file names "+
	"(\"*.go\") or paths (\"src/**/*.ts\").", maxGrepMatches)

func (Grep) Parameters() json.RawMessage { return grepParameters }

// grepParameters is shared by every request that offers the tool: never modify it.
var grepParameters = json.RawMessage(`{
  "type": "object",
  "properties": {
    "pattern": {"type": "string", "description": "Regular expression to search for (Go RE2 syntax)"},
    "path": {"type": "string", "description": "File or directory to search (default: the working directory)"},
    "glob": {"type": "string", "description": "Only search files matching this glob, e.g. \"*.go\""},
    "ignore_case": {"type": "boolean", "description": "Match case-insensitively (default false)"}
  },
  "required": ["pattern"]
}`)

type grepArgs struct {
	pathArg
	Pattern    string `json:"pattern"`
	Glob       string `json:"glob"`
	IgnoreCase bool   `json:"ignore_case"`
	// Claude Code's and pi's spellings.
	DashI          bool `json:"-i"`
	IgnoreCaseCaml bool `json:"ignoreCase"`
}

func (Grep) Run(ctx context.Context, call Call, _ func(string)) (Result, error) {
	cwd, err := call.workdir()
	if err != nil {
		return Result{}, fmt.Errorf("grep: %w", err)
	}
	var args grepArgs
	if res, ok := decodeArgs("grep", call.Args, &args); !ok {
		return res, nil
	}
	if args.Pattern == "" {
		return missingArg("grep", "pattern"), nil
	}
	expr := args.Pattern
	if args.IgnoreCase || args.DashI || args.IgnoreCaseCaml {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return badArg("grep", "pattern", fmt.Sprintf("not a valid regular expression: %v", err)), nil
	}
	glob := filepath.ToSlash(args.Glob)
	if glob != "" && !doublestar.ValidatePattern(glob) {
		return badArg("grep", "glob", "is not a valid glob pattern"), nil
	}
	root := cwd
	if args.path() != "" {
		root = resolvePath(cwd, args.path())
	}
	fi, err := os.Stat(root)
	if errors.Is(err, fs.ErrNotExist) {
		return errorResult("grep: path not found: " + displayPath(cwd, root)), nil
	}
	if err != nil {
		return errorResult(fmt.Sprintf("grep: %v", err)), nil
	}

	if !fi.IsDir() {
		if binary, err := fileIsBinary(root); err != nil || binary {
			return errorResult("grep: cannot search " + displayPath(cwd, root) + ": not a readable text file"), nil
		}
	}
	s := &grepSearch{ctx: ctx, cwd: cwd, re: re}
	if fi.IsDir() {
		err = s.walk(root, glob)
	} else {
		err = s.file(root)
	}
	if ctx.Err() != nil {
		return cancelledResult("grep"), nil
	}
	if err != nil && !errors.Is(err, errWalkStop) {
		return errorResult(fmt.Sprintf("grep: %v", err)), nil
	}
	if s.matches == 0 {
		return textResult(fmt.Sprintf("No matches for %q in %s", args.Pattern, displayPath(cwd, root))), nil
	}
	text := strings.TrimSuffix(s.out.String(), "\n")
	if s.more {
		text += fmt.Sprintf("\n[results truncated: showing the first %d matching lines; narrow the pattern, path or glob]", s.matches)
	}
	return textResult(text), nil
}

// grepSearch accumulates matching lines across files.
type grepSearch struct {
	ctx     context.Context
	cwd     string
	re      *regexp.Regexp
	out     strings.Builder
	matches int
	more    bool // stopped at a limit with matches left unread
}

func (s *grepSearch) walk(root, glob string) error {
	enter := func(_ string, d fs.DirEntry) bool { return !skippedDirs[d.Name()] }
	visit := func(p string, d fs.DirEntry) error {
		if !d.Type().IsRegular() {
			return nil // links are not followed, to avoid loops and duplicates
		}
		if glob != "" && !globSelects(glob, root, p) {
			return nil
		}
		return s.file(p)
	}
	return walkTree(s.ctx, root, enter, visit)
}

// globSelects applies ripgrep's rule: a glob without a slash matches the
// file name at any depth, one with a slash the path relative to root.
func globSelects(glob, root, p string) bool {
	if !strings.Contains(glob, "/") {
		return doublestar.MatchUnvalidated(glob, path.Base(filepath.ToSlash(p)))
	}
	rel, err := filepath.Rel(root, p)
	return err == nil && doublestar.MatchUnvalidated(glob, filepath.ToSlash(rel))
}

// file searches one file; unreadable and binary files are skipped silently,
// and errWalkStop is returned once the output is full.
func (s *grepSearch) file(p string) error {
	f, err := os.Open(p)
	if err != nil {
		return nil
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 64*1024)
	if head, _ := r.Peek(sniffLen); looksBinary(head) {
		return nil
	}
	shown := displayPath(s.cwd, p)
	for n := 1; ; n++ {
		line, _, ok, err := readLine(r, maxGrepLineBytes)
		if !ok {
			return nil
		}
		line = bytes.TrimSuffix(line, []byte{'\r'})
		if s.re.Match(line) {
			if s.matches == maxGrepMatches || s.out.Len() >= MaxOutputBytes {
				s.more = true
				return errWalkStop
			}
			s.matches++
			fmt.Fprintf(&s.out, "%s:%d:%s\n", shown, n, clipLine(strings.ToValidUTF8(string(line), "\uFFFD")))
		}
		if err != nil {
			return nil // EOF, or a read error that ends this file but not the search
		}
		if n%4096 == 0 && s.ctx.Err() != nil {
			return s.ctx.Err()
		}
	}
}
