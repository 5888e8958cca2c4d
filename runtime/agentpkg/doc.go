// Package agentpkg is the scripted agents' packages (the hugind agent
// format): the agent.yaml manifest, its validation naming each field, and
// the installed agents in $TROUPE_HOME/agents/<name>: install from a
// folder, an agent.yaml, a .zip or an http(s) URL (approval needed for
// any permission or MCP server), list, remove, resolve.
//
// A manifest:
//
//	name: file-search          # [A-Za-z0-9][A-Za-z0-9._-]*, the folder's name once installed
//	version: 1.0.0
//	runtime: ">=1.0"           # required runtime version: "1", "1.0" or ">=1.0"
//	entry: main.js             # default main.js, inside the package
//	mode: agentic              # agentic (default) | script
//	max_turns: 10              # default 10; set_max_turns() in JS wins
//	backend:
//	  url: http://127.0.0.1:8080/v1   # ${VAR} expanded; or config: NAME (a llama-server config);
//	                                  # neither: $OPENAI_BASE_URL
//	  model: qwen
//	  session: stateless       # stateless (default) | fresh | resume: X-Session-ID
//	permissions:
//	  network: {hosts: [api.example.com]}        # "*" any host
//	  filesystem: {read: [.], write: [./out]}     # relative to the run's directory
//	  shell: {commands: [ls, grep]}               # "*" any command
//	mcp:                       # started by agentic runs; tools named files__<tool>
//	  - {name: files, command: mcp-files, args: [--root, .]}   # or url: (streamable HTTP)
//	env: {KEY: value}
//
// It is a library: files and HTTP only, no actors.
//
// An install is staged, then renamed into $TROUPE_HOME/agents/<name>.
//
// It imports no troupe package: it does not run an agent (runtime/agentjs
// and actors/agent do).
package agentpkg
