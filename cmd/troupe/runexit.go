package main

import "github.com/troupehq/troupe/persistence/event"

// Exit statuses of `troupe run`.
const (
	exitOK    = 0
	exitError = 1 // the run failed (provider, store), or troupe did
	exitUsage = 2 // bad flags or configuration, nothing to run; nothing was recorded
	// exitDenied: the run ended, but tool calls were denied because troupe
	// run cannot ask for approval; its answer may rest on calls that never ran.
	exitDenied    = 3
	exitCancelled = 130 // as for SIGINT
)

// exitFor maps a run's end to the exit status: a finished answer is
// success unless calls were denied for want of someone to ask; a failure
// and a cancel keep their own codes.
func exitFor(stop string, unasked int) int {
	switch stop {
	case event.StopEndTurn, event.StopMaxTokens, event.StopMaxTurnRequests:
		if unasked > 0 {
			return exitDenied
		}
		return exitOK
	case event.StopCancelled:
		return exitCancelled
	}
	return exitError
}

// runLong is `troupe run`'s help.
const runLong = `Run one prompt to the end and print the transcript (with --json, the
canonical events as NDJSON). Without a prompt, ` + "`troupe run --session ID`" + `
continues the run a crash interrupted.

A session keeps its settings (approval mode, provider, model, thinking level,
crash policy, auto-retry) in its log; on a later run of the same session only
the flags given change them.

Exit status: 0 the model answered; 1 an error; 2 bad flags or configuration,
or nothing to run; 3 the model answered but tool calls were denied because no
one could approve them (allow them with --yolo or --mode auto_edit);
130 cancelled.`
