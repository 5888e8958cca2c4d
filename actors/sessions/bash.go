package sessions

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/runtime/tools"
)

// RunBash runs a user's own shell command (not the model's) in cwd, in the
// calling goroutine, so never on a mailbox; cancelling ctx kills it, and
// what it printed so far is still returned. RecordBash then records it for
// the model's next prompt. The output is the command's own, without the
// notes the bash tool adds for a model: exit code, cancellation and
// truncation are fields.
func (c *Client) RunBash(ctx context.Context, cwd, command string) (event.BashExecutedPayload, error) {
	args, _ := json.Marshal(map[string]any{"command": command, "timeout": tools.MaxBashTimeout.Seconds()})
	res, err := tools.Bash{}.Run(ctx, tools.Call{Cwd: cwd, Args: args, SpillDir: c.spillDir}, nil)
	if err != nil {
		return event.BashExecutedPayload{}, err
	}
	return bashPayload(command, res), nil
}

func bashPayload(command string, res tools.Result) event.BashExecutedPayload {
	p := event.BashExecutedPayload{Command: command, Output: bashOutput(res.Output), FullOutputPath: res.FullOutputPath}
	if code, ok := res.Metadata[tools.MetaExitCode].(int); ok {
		p.ExitCode = code
	}
	p.Cancelled, _ = res.Metadata[tools.MetaCancelled].(bool)
	p.Truncated, _ = res.Metadata[tools.MetaTruncated].(bool)
	if p.Output == "(no output)" {
		p.Output = ""
	}
	return p
}

// bashOutput drops the bracketed notes the bash tool adds for a model
// (exit code, truncation).
func bashOutput(s string) string {
	i := strings.LastIndex(s, "\n\n[")
	for i >= 0 {
		notes := strings.Split(s[i+2:], "\n")
		all := true
		for _, n := range notes {
			if !strings.HasPrefix(n, "[") || !strings.HasSuffix(n, "]") {
				all = false
			}
		}
		if all {
			out := s[:i]
			if out != "" {
				out += "\n"
			}
			return out
		}
		i = strings.LastIndex(s[:i], "\n\n[")
	}
	return s
}
