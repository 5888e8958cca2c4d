// Package tooltext is the text tool-calling protocol for models without
// native function calling (specs/hugind-tool-calling-flow.md): it renders the
// tools section of the system prompt, finds tool calls and thinking in an
// assistant reply (whole or streamed), and formats tool results and the
// max-turns request sent back to the model.
//
// It owns only text: it performs no I/O, runs no tools, holds no
// conversation history and knows nothing of actors, sessions or transports.
// Callers keep the raw reply (thinking included) in history; this package
// only tells them what to show, what to run and what went wrong.
package tooltext
