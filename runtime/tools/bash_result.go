package tools

import (
	"fmt"
	"strings"
)

// bashResult renders the output, then bracketed notes on how the command
// ended, for the model.
func bashResult(sum sinkSummary, info exitInfo) Result {
	var notes []string
	note := func(format string, a ...any) { notes = append(notes, "["+fmt.Sprintf(format, a...)+"]") }
	if sum.truncated {
		summary := fmt.Sprintf("output truncated: showing the last %d of %d lines (%s of %s)",
			countLines(sum.text), sum.lines, kb(len(sum.text)), kb(sum.total))
		if sum.fullPath != "" {
			note("%s; full output saved to %s", summary, sum.fullPath)
		} else {
			note("%s; full output could not be saved: %v", summary, sum.spillErr)
		}
	}
	if info.pipeHeld {
		note("background processes kept the output open; output after the shell exited is not shown")
	}
	switch {
	case info.timedOut:
		note("command timed out after %s; its processes were killed", info.timeout)
	case info.cancelled:
		note("command cancelled; its processes were killed")
	case info.code < 0:
		note("command ended abnormally: %s", info.state)
	}
	if info.code >= 0 {
		note("exit code: %d", info.code)
	}

	text := strings.TrimSuffix(sum.text, "\n")
	if sum.total == 0 {
		text = "(no output)"
	}
	return Result{
		Output:     text + "\n\n" + strings.Join(notes, "\n"),
		IsError:    info.code != 0 || info.timedOut || info.cancelled,
		OutputType: OutputText,
		Metadata: map[string]any{
			MetaExitCode:  info.code,
			MetaTimedOut:  info.timedOut,
			MetaCancelled: info.cancelled,
			MetaTruncated: sum.truncated,
		},
		FullOutputPath: sum.fullPath,
	}
}

func kb(n int) string {
	if n < 1024 {
		return fmt.Sprintf("%d B", n)
	}
	return fmt.Sprintf("%.1f KB", float64(n)/1024)
}
