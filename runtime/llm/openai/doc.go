// Package openai is an llm.Provider for servers that speak the OpenAI
// chat-completions API, llama-server first among them: it builds the
// /v1/chat/completions request, reads the answer (an event stream or one
// JSON document) into llm chunks and an llm.Response, and classifies
// failures as *llm.Error. It also reads llama-server's /props and /health
// and the /v1/models list.
//
// It owns the wire format only. It must not start or stop servers, retry,
// log, or keep state between requests: the process manager and the engine
// above it decide those.
package openai
