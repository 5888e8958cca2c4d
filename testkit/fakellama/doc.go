// Package fakellama is an HTTP server that behaves like llama.cpp's
// llama-server (the 2026 build recorded in testdata/) without a model: it
// answers 503 "Loading model" on every route for a configurable load time,
// then /health, /v1/models, /props (with chat_template_caps), /slots and
// /v1/chat/completions, streaming frame for frame like the real server.
// Replies are scripted (Options.Replies, then echo) or echo the last user
// message. The command testkit/cmd/fake-llama-server runs it as a process
// with llama-server's own flags, for tests of troupe's process actors.
package fakellama
