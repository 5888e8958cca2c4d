// Package openairesponses is an llm.Provider for OpenAI's Responses API
// (POST /v1/responses): the API reasoning models need so their reasoning
// carries across turns, and the only one some models are served on. It
// builds the request with the official SDK (github.com/openai/openai-go/v3,
// package responses), reads the event stream into llm chunks and an
// llm.Response, keeps the encrypted reasoning items in the message's
// llm.Continuation and sends them back as input items next turn, and
// classifies failures as *llm.Error.
//
// It is stateless towards the server: every request sets store=false and
// sends the whole conversation, since the session log, not OpenAI, holds
// the history. It owns the wire format only; it must not retry (the SDK's
// retries are off: the run retries), log, or keep state between requests,
// and it must not read the environment (the SDK's client would read
// OPENAI_API_KEY and OPENAI_BASE_URL; the service is built without it).
//
// OpenAI-compatible chat completions stay in runtime/llm/openai, whose own
// parser is faster for the local servers that stream thousands of deltas a
// second.
package openairesponses
