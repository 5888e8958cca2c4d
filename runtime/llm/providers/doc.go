// Package providers builds the llm.Provider for one model's API: the one
// place that knows which package speaks which wire format (OpenAI-compatible
// chat completions, OpenAI Responses, Anthropic Messages directly or through
// Bedrock or Vertex, Gemini).
//
// It owns the API names and the Endpoint a resolved model becomes. It must
// not read models.yml or the environment on its own (modelconfig resolves
// them and hands over Endpoint.Env for the cloud credential chains), and it
// keeps no state: the engine caches the providers it builds.
package providers
