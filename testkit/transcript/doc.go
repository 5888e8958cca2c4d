// Package transcript runs protocol golden tests: one txtar archive per
// scenario drives the real troupe binary through stdin and stdout, against
// the scripted LLM server (testkit/llmserver), and compares what was said
// both ways, normalised, with the archive's want section. Every stdio
// transport's end-to-end suite is written this way, and so can the suite
// of anyone testing their own troupe setup. A newcomer reads the archives
// as the protocol's documentation.
//
// # Why testscript
//
// The archives are github.com/rogpeppe/go-internal/testscript scripts: the
// archive's comment is a script and its files are unpacked into $WORK.
// Scenarios interleave input and output (wait for a line before sending
// the next: answer approvals in reverse order, stop mid-stream), kill a
// process mid-turn and start another on the same home, and check the
// requests the LLM received. testscript's own exec cannot feed a running
// process, but its custom commands can, with per-script state; in return
// the kit gets a format Go programmers know, the builtin commands (exec,
// grep, stdout, env, conditions), -testwork to keep $WORK, and
// UpdateScripts for -update. A runner of our own would have had to grow
// all of these.
//
// # A transcript
//
//	# SIGTERM while a reply streams: the run is aborted, its end is
//	# written and the process exits 143.
//	llmserver llm.yaml
//	start troupe --mode rpc --provider openai --model tiny
//	send '{"id":"1","type":"prompt","message":"talk slowly"}'
//	expect '"text_delta"'
//	signal TERM
//	drain
//	transcript
//	cmp stdout want
//
//	-- llm.yaml --
//	replies:
//	  - steps: [{text: Partial}, {delay: 20s}, {text: " never"}]
//	-- want --
//	$ troupe --mode rpc --provider openai --model tiny
//	> {"id":"1","type":"prompt","message":"talk slowly"}
//	< {"id":"1","type":"response","command":"prompt","success":true}
//	...
//	SIGTERM
//	< {"type":"agent_end",...}
//	exit 143
//
// The want section's lines: "$ PROGRAM ARGS" a process started; "> LINE" a
// line sent, as written in the script; "> EOF" stdin closed; "< LINE" a
// line received, normalised; "SIGKILL", "SIGTERM"... a signal sent;
// "exit N" the process ended with status N (-1: killed by a signal).
//
// # Commands
//
// Besides testscript's builtins:
//
//	llmserver FILE     serve the LLM script in FILE (llmserver.LoadScript);
//	                   $LLM is its URL
//	start PROG ARG...  run PROG (found on the script's PATH, where Run puts
//	                   troupe first) in the current directory; one process
//	                   at a time
//	send LINE          write LINE to stdin; quote it, '...' ('' for a ')
//	expect TEXT...     read lines up to the first that contains every TEXT
//	                   (plain substrings, not regexps: JSON is full of
//	                   regexp syntax)
//	close              close stdin, then drain
//	drain              read to the end of the output, wait for the exit
//	signal NAME        send SIGNAME: KILL (then wait; lines not read yet
//	                   are dropped, as when they were written is a race),
//	                   TERM, INT or HUP (then drain or go on)
//	sleep DURATION     pause, when the program must get further than its
//	                   output shows
//	[!] request N TEXT the LLM server's Nth chat request (waited for) has
//	                   TEXT in its JSON body
//	transcript         print the transcript to stdout, for cmp stdout want;
//	                   fails if the LLM server reported a problem (a
//	                   script out of replies)
//
// In send and expect, $NAME and ${NAME} are replaced: an id placeholder
// the transcript has shown ($S1, $M2) by the real id, then a Params.Vars
// entry or a script variable ($WORK, $TROUPE_HOME, $LLM); anything else
// stays as written. Every line received must be a JSON object.
//
// The process gets the test's environment plus TROUPE_HOME ($WORK/.troupe,
// the data home; files the archive puts there seed it), TMPDIR (the
// script's) and, once llmserver runs, OPENAI_BASE_URL=$LLM/v1 and an empty
// OPENAI_API_KEY, so --provider openai talks to the scripted server. A
// scenario starts with a fresh home, and every process of a scenario
// shares it.
//
// Lines received are normalised by Normaliser, the one place that knows
// what changes between runs (paths, ids, times, durations, pids, long
// strings).
//
// # Updating
//
// go test -run TestTranscripts -update (with Params.Update wired to the
// flag) rewrites each want section that differs; a new scenario starts
// with an empty "-- want --" section. Read the diff before committing it.
package transcript
