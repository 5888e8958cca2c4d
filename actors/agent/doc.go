// Package agent runs one scripted agent (an agent.yaml package) as an
// actor: its JavaScript runtime (runtime/agentjs) and its model calls run
// on one worker goroutine the actor owns, a job at a time, each job's
// outcome coming back as a message, so the mailbox never blocks on the VM
// or the network. The actor drives hugind's agentic loop (specs:
// hugind-tool-calling-flow.md): load the entry point, then turns of a
// model call in the text tool-call style (runtime/tooltext), the calls'
// execute run in the VM, "Tool results" sent back, until the model stops
// calling tools or max turns is reached; mode script runs the entry point
// once and returns what it printed. The manifest's MCP servers are child
// actors (actors/sessions/mcp, as a session's): their tools join the
// script's as <server>__<tool>, called on the worker.
//
// What a run says goes out as Events (status agent.run.start/finish, log
// from print, agent_event agent.setup/turn/tool_call/tool_result/
// progress/complete, and the trace) through an outbox the caller drains
// on a goroutine of its own: emitting never blocks the actor.
//
// Cancel and the wall-clock limit interrupt the VM (goja's Interrupt)
// and the model call. Crash policy: a run is not recorded in the store,
// so it is never resumed: a run cut by a crash of its actor ends with an
// error instead of running again, and one cut by the process's death
// (SIGKILL) is simply over; its commands die with troupe (runtime/proc).
// Nothing an agent did is ever executed twice.
//
// Host.Prepare resolves what a run needs before it starts: the package, the
// backend (a url, a llama-server config through actors/servers, or the
// model models.yml and $OPENAI_BASE_URL resolve to, as for troupe run),
// the session id and the skills.
package agent
