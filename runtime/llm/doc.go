// Package llm holds the provider-neutral vocabulary for talking to a language
// model: the messages and tool definitions of a request, the deltas a
// streaming reply is made of, the assembled reply, and the classified error
// every provider returns.
//
// It owns only types and the rules for classifying failures. It must not
// touch the network, the session log or any actor: providers (such as
// runtime/llm/openai) implement Provider on top of these types, and the
// engine decides what to do with a Chunk or an *Error.
package llm
