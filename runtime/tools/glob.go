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

	"github.com/bmatcuk/doublestar/v4"
	"github.com/samber/lo"
)

// maxGlobResults bounds how many paths glob returns.
const maxGlobResults = 1000

// Glob finds files whose path matches a pattern.
type Glob struct{}

func (Glob) Name() string       { return "glob" }
func (Glob) Category() Category { return CategoryInfo }

func (Glob) Description() string { return globDescription }

// globDescription is formatted once, not per request.
var globDescription = fmt.Sprintf("Find files by glob pattern, matched against paths relative to the search "+
	"directory. Supports *, ?, [abc], {a,b} and ** for any number of directories: "+
	"\"*.go\" matches only the top level, \"**/*.go\" matches at any depth. Skips .git and "+
	"node_modules. Returns at most %d paths, relative to the working directory.", maxGlobResults)

func (Glob) Parameters() json.RawMessage { return globParameters }

// globParameters is shared by every request that offers the tool: never modify it.
var globParameters = json.RawMessage(`{
  "type": "object",
  "properties": {
    "pattern": {"type": "string", "description": "Glob pattern, e.g. \"**/*.go\" or \"src/**/*_test.ts\""},
    "path": {"type": "string", "description": "Directory to search in (default: the working directory)"}
  },
  "required": ["pattern"]
}`)

type globArgs struct {
	pathArg
	Pattern string `json:"pattern"`
}

func (Glob) Run(ctx context.Context, call Call, _ func(string)) (Result, error) {
	cwd, err := call.workdir()
	if err != nil {
		return Result{}, fmt.Errorf("glob: %w", err)
	}
	var args globArgs
	if res, ok := decodeArgs("glob", call.Args, &args); !ok {
		return res, nil
	}
	if args.Pattern == "" {
		return missingArg("glob", "pattern"), nil
	}
	root := cwd
	if args.path() != "" {
		root = resolvePath(cwd, args.path())
	}
	pattern := filepath.ToSlash(args.Pattern)
	if !doublestar.ValidatePattern(pattern) {
		return badArg("glob", "pattern", "is not a valid glob pattern"), nil
	}
	// Walk only below the pattern's literal prefix: "src/**/*.go" walks src.
	base, pattern := doublestar.SplitPattern(strings.TrimPrefix(pattern, "./"))
	root = resolvePath(root, filepath.FromSlash(base))
	if res, ok := checkDir("glob", cwd, root); !ok {
		return res, nil
	}

	matches, more, err := globWalk(ctx, root, pattern)
	if ctx.Err() != nil {
		return cancelledResult("glob"), nil
	}
	if err != nil {
		return errorResult(fmt.Sprintf("glob: %v", err)), nil
	}
	if len(matches) == 0 {
		return textResult(fmt.Sprintf("No files matched %q in %s", args.Pattern, displayPath(cwd, root))), nil
	}
	lines := lo.Map(matches, func(m string, _ int) string { return displayPath(cwd, m) })
	text, cut := truncateHead(strings.Join(lines, "\n"), MaxOutputBytes, MaxOutputLines)
	if more || cut {
		text = strings.TrimSuffix(text, "\n") + fmt.Sprintf(
			"\n[results truncated: showing the first %d matches; narrow the pattern or path]", countLines(text))
	}
	return textResult(text), nil
}

// globWalk returns the files under root whose slash-separated path relative
// to root matches pattern, in lexical order; more reports that it stopped at
// maxGlobResults.
func globWalk(ctx context.Context, root, pattern string) (matches []string, more bool, err error) {
	// Without "**" no match lies deeper than the pattern has segments.
	maxDepth := -1
	if !strings.Contains(pattern, "**") {
		maxDepth = strings.Count(pattern, "/") + 1
	}
	// rel is the path pattern is matched against. filepath.Rel cannot fail
	// on a path found below root; were it to, a file would not match and a
	// directory would be entered.
	rel := func(path string) (string, bool) {
		r, err := filepath.Rel(root, path)
		return filepath.ToSlash(r), err == nil
	}
	enter := func(path string, d fs.DirEntry) bool {
		r, ok := rel(path)
		if !ok {
			return true
		}
		if skippedDirs[d.Name()] && !strings.Contains(pattern, d.Name()) {
			return false
		}
		return maxDepth < 0 || strings.Count(r, "/")+1 < maxDepth
	}
	visit := func(path string, _ fs.DirEntry) error {
		r, ok := rel(path)
		if !ok || !doublestar.MatchUnvalidated(pattern, r) {
			return nil
		}
		if len(matches) == maxGlobResults {
			more = true
			return errWalkStop
		}
		matches = append(matches, path)
		return nil
	}
	err = walkTree(ctx, root, enter, visit)
	return matches, more, err
}

// checkDir returns the Result to give the model when dir is not a directory.
func checkDir(tool, cwd, dir string) (Result, bool) {
	fi, err := os.Stat(dir) // follows links: a linked directory counts
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return errorResult(tool + ": directory not found: " + displayPath(cwd, dir)), false
	case err != nil:
		return errorResult(fmt.Sprintf("%s: %v", tool, err)), false
	case !fi.IsDir():
		return errorResult(tool + ": " + displayPath(cwd, dir) + " is not a directory"), false
	}
	return Result{}, true
}
