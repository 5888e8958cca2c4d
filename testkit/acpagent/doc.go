// Package acpagent is the test kit's scripted ACP agent: a program the
// daemon starts as an external agent (testkit/cmd/troupe-acpagent) whose
// every prompt is a script, one command a line, so a test drives what
// the agent does through the daemon's own front door.
//
//	say TEXT            an agent_message_chunk
//	chunks N TEXT       N agent_message_chunks of TEXT, encoded once and
//	                    written in 64 KiB blocks (so a benchmark measures
//	                    the daemon, not the agent)
//	think TEXT          an agent_thought_chunk
//	tool ID KIND TITLE  a tool_call (pending)
//	done ID TEXT        the call completed with TEXT
//	fail ID TEXT        the call failed with TEXT
//	ask ID              session/request_permission for call ID; says the answer
//	read PATH           fs/read_text_file; says what it read (or the error)
//	write PATH TEXT     fs/write_text_file; says it wrote (or the error)
//	run CMD ARGS...     terminal/create, wait_for_exit, output, release; says them
//	plan A;B            a plan with entries A and B
//	wait                blocks until session/cancel, then the turn ends cancelled
//	crash               exits 3 at once, mid-turn
//	usage IN OUT        the prompt's answer reports IN and OUT tokens
//	cost TOTAL          a usage_update: the session's cost so far is TOTAL
//	recall              says the prompts it saw in this session and its brief
//	mode                says the mode session/set_mode last set
//	model               says the session's model and what set it (start, set_model, set_config_option)
//	mcp                 says the MCP servers session/new gave (name=command|url)
//	args                says its command-line arguments
//	pid                 says its process id
//	anything else       says "echo: " and the line
//
// A prompt of several text blocks is a takeover brief followed by the
// script: the agent keeps the brief for recall. Sessions are kept in
// Options.StateDir (one file each), so session/load after a restart
// replays them, as a real agent's does; NoLoad turns loading off.
// session/list (advertised as sessionCapabilities.list) lists the kept
// sessions two a page, each titled by its first prompt. It offers the
// models fast and smart, as session/new's models and as a model config
// option; session/set_model (unless NoSetModel) and set_config_option
// set one.
//
// It owns nothing of troupe's: it is a client of the protocol only.
package acpagent
