// Package mcp owns exposing troupe's operations as MCP tools, over stdio
// (`troupe mcp`) and Streamable HTTP (`/mcp` on `troupe daemon`), both
// served by the official MCP Go SDK.
//
// The tools: the hugind bridge's config.*, model.* and server.* (shared
// with transports/hugind, schemas and handlers alike), and the session
// tools: session.list, session.create, session.prompt (queues a message
// and waits for the run's end, streaming the reply's text as
// notifications/progress when the call carries a progressToken) and
// session.transcript. ping and logging/setLevel are the SDK's. Protocol
// versions 2025-11-25, 2025-06-18 and 2025-03-26 are negotiated: a client
// asking for another gets 2025-11-25.
//
// Like every transport it reaches sessions only through the session
// facade (actors/sessions), never the store.
//
// The bridge's tools are added by hugind.Bridge.AddTools. Over stdio it has
// its own line connection (bad lines answered, calls drained at EOF); over
// Streamable HTTP it uses the SDK's handler, with errors rewritten as
// JSON-RPC.
package mcp
