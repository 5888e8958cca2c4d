package tools

import (
	"context"
	"encoding/json"

	"github.com/troupehq/troupe/runtime/proc"
)

// Category is how approval policy groups tools; the values are the aionrs
// json-stream categories, matched exactly.
type Category string

const (
	CategoryInfo Category = "info" // read-only
	CategoryEdit Category = "edit" // mutates files
	CategoryExec Category = "exec" // runs processes
	CategoryMCP  Category = "mcp"  // provided by an MCP server
)

// OutputType tells a client how to render Result.Output; the values are the
// aionrs tool_result output_type values.
type OutputType string

const (
	OutputText OutputType = "text"
	OutputDiff OutputType = "diff"
)

// Metadata keys set by the built-ins.
const (
	MetaFilePath  = "file_path" // absolute path of the file a tool wrote
	MetaExitCode  = "exit_code" // int; -1 when killed by a signal
	MetaTimedOut  = "timed_out" // bool
	MetaCancelled = "cancelled" // bool; ctx was cancelled while running
	MetaTruncated = "truncated" // bool
)

// Call is one invocation of a tool.
type Call struct {
	// Cwd is the session's working directory; relative paths resolve against it.
	Cwd string
	// AllowedDirs are directories besides Cwd the session may write without
	// asking; see Within.
	AllowedDirs []string
	// Args is the raw JSON object of arguments the model sent.
	Args json.RawMessage
	// SpillDir receives files holding output too long to return inline;
	// empty means the system temporary directory.
	SpillDir string
	// Marker, when set, goes into the environment of the processes the
	// call starts (proc.MarkerEnv): what lets a later troupe prove a
	// recorded process still is one this call started (proc.KillProven).
	Marker string
	// OnStart, when set, is told the proof of a process group the call
	// started (its leader's pid is the group's id), so the runtime can
	// record it and kill what is left of the group after a crash of its
	// own.
	OnStart func(proc.Proof)
}

// Result is what the model (and the client) see of a finished call.
type Result struct {
	Output         string
	IsError        bool
	OutputType     OutputType     // empty means OutputText
	Metadata       map[string]any // see the Meta* keys; may be nil
	FullOutputPath string         // set when Output was truncated and the whole is on disk
}

// Tool is one callable tool.
//
// Run reports problems the model should see (bad arguments, missing files,
// failing commands, cancellation) as a Result with IsError set and a nil
// error; a non-nil error means the runtime itself failed (no cwd, no shell).
// progress, which may be nil, receives the cumulative output so far; it is
// never called concurrently and never after Run returns. Description and
// Parameters may return values shared by every session (the built-ins do:
// thousands of sessions would otherwise each build their own per request),
// so callers never modify them.
type Tool interface {
	Name() string
	Description() string
	Parameters() json.RawMessage
	Category() Category
	Run(ctx context.Context, call Call, progress func(partial string)) (Result, error)
}

// Toucher is implemented by tools that write files, so approval logic can
// ask which paths a call would write before running it.
type Toucher interface {
	// Touches returns the absolute paths the call would write, or nil when
	// the arguments do not name any (the call will then fail on its own).
	Touches(call Call) []string
}

func textResult(s string) Result {
	return Result{Output: s, OutputType: OutputText}
}

func errorResult(s string) Result {
	return Result{Output: s, IsError: true, OutputType: OutputText}
}

func cancelledResult(tool string) Result {
	r := errorResult(tool + ": cancelled")
	r.Metadata = map[string]any{MetaCancelled: true}
	return r
}
