// Package hugind is the hugind stdio bridge (`troupe stdio`): NDJSON
// requests {id, method, params} on stdin, each answered by one response
// {id, ok, result|error, schema_version:"1"}, with events {event, id, data,
// schema_version} (status, progress, log) before it. Unlike the original,
// requests run concurrently: a long model.add does not hold up server.list.
//
// Methods: config.list|validate|info|remove|defaults|init (runtime/
// llamaconfig), model.list|show|add|remove (runtime/modelstore),
// server.list|start|stop (actors/servers). Anything else, the agent.*
// methods included, answers internal_error "Unknown method". Lines that
// are not a JSON object get invalid_json; a request without a string id
// or method, or with params that are not an object or not of the method's
// shape, gets invalid_request. When no id can be read, the answer's id is
// "unknown". MCP JSON-RPC lines are not handled yet: they are answered as
// requests of unknown methods.
package hugind
