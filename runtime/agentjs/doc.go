// Package agentjs is a scripted agent's JavaScript runtime: one goja VM
// (github.com/dop251/goja, pure-Go ECMAScript) driven by a goja_nodejs
// event loop (github.com/dop251/goja_nodejs/eventloop), with the globals of
// hugind's agent runtime (specs: hugind-tool-calling-flow.md sections 1, 5
// and 10): print, print_raw, eprint, input, hugind_version; ask_llm;
// fetch, http_get, http_post; run_command, runCommand, spawn (promises);
// fs.read_text|write_text|list_dir|cwd|is_dir|mkdir (synchronous);
// register_tool, set_system_prompt, set_max_turns, register_tools_json,
// get_tool_results; memory.get|set. The loop adds setTimeout and its
// kin; require and console are removed.
//
// Capabilities follow the manifest's permissions: a denied one throws a
// JavaScript Error naming the permission; fs is confined to the declared
// paths (the package's own folder is always readable); run_command runs
// only the listed programs, through sh only when "*" is allowed.
//
// The VM is single-threaded and not safe for concurrent use, so the
// runtime runs in phases: Load evaluates the entry point, Call runs one
// tool's execute; each blocks its caller until the event loop is idle
// (every promise the phase started settled, every timer fired), which is
// the spec's wait_idle. The caller runs phases one at a time on a
// goroutine of its own (actors/agent does, off its mailbox). Interrupt,
// safe from any goroutine, stops the running phase with goja's Interrupt
// and cancels the commands and requests under way. It knows no actors.
//
// It knows nothing of sessions or the store either: it imports only the
// agent's package (runtime/agentpkg) and runtime/proc for the processes a
// script starts; actors/agent runs it.
package agentjs
