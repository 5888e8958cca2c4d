// Package llm holds the provider-neutral vocabulary for talking to a language
// model: the messages and tool definitions of a request, the deltas a
// streaming reply is made of, the assembled reply, and the classified error
// every provider returns.
//
// It owns the types and the rules every provider must apply alike: how
// failures are classified (including the error bodies OpenAI-compatible
// servers share) and how chunks are assembled into a Response (Assembler),
// so that a provider and a fake of it cannot drift apart. It must not touch
// the network, the session log or any actor: providers (such as
// runtime/llm/openai) implement Provider on top of these types, and the
// engine decides what to do with a Chunk or an *Error.
package llm
