// Package hugind is the hugind stdio bridge (`troupe stdio`): NDJSON
// requests {id, method, params} on stdin, each answered by one response
// {id, ok, result|error, schema_version:"1"}, with events {event, id, data,
// schema_version} (status, progress, log) before it. Unlike the original,
// requests run concurrently: a long model.add does not hold up server.list.
//
// Methods: config.list|validate|info|remove|defaults|init (runtime/
// llamaconfig), model.list|show|add|remove (runtime/modelstore),
// server.list|start|stop (actors/servers), agent.list|install|remove
// (runtime/agentpkg) and agent.run (actors/agent: status, log and
// agent_event events; troupe adds params cwd and timeout_ms). Anything
// else answers internal_error "Unknown method". Lines that
// are not a JSON object get invalid_json; a request without a string id
// or method, or with params that are not an object or not of the method's
// shape, gets invalid_request. When no id can be read, the answer's id is
// "unknown".
//
// Lines with "jsonrpc":"2.0" are MCP, on the same stdin: the bridge hands
// them to the official MCP Go SDK through a custom transport (mcpConn), so
// initialize, notifications/initialized and tools/list are the SDK's; each
// method is a tool with the JSON Schema of its params, and tools/call
// answers with the method's JSON result as text content (isError with the
// code and message when it fails). A method's events go out as
// notifications/hugind.status|progress|log|agent_event with params {id, data}, id the
// call's JSON-RPC id (carried to the handler in the call's _meta). At EOF
// the bridge answers every request and call under way before returning.
//
// Bridge.AddTools puts the same tools on any SDK server, with the events
// sent as its caller chooses: troupe's MCP transport (transports/mcp)
// serves them beside its session tools.
//
// Besides its own codec and transports/stdio it reaches only what its
// methods manage: the llama-server supervisor (actors/servers), configs,
// model files, agent packages and runs; it does not reach sessions.
package hugind
