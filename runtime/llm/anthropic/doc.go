// Package anthropic is an llm.Provider for Anthropic's Messages API, spoken
// through the official SDK (github.com/anthropics/anthropic-sdk-go) directly
// or through Amazon Bedrock and Google Cloud Vertex AI: it turns an
// llm.Request into a streamed Messages request (system blocks, tools, tool
// results, images, extended thinking, prompt-cache markers), reads the event
// stream into llm chunks and an llm.Response whose Continuation keeps the
// thinking blocks with their signatures, and classifies failures as
// *llm.Error.
//
// It owns this wire format and the translation of a provider-neutral history
// into it (foreign continuations dropped, tool-call ids made valid). It must
// not retry (the SDK's own retries are off: the run retries), read the
// process environment (the credentials chains read the Env they are given),
// log, or keep state between requests.
package anthropic
