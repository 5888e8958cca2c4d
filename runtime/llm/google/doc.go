// Package google is an llm.Provider for Google's Gemini API
// (generativelanguage.googleapis.com, API-key authentication) on the
// official SDK, google.golang.org/genai: it turns an llm.Request into
// contents, a system instruction, function declarations and a thinking
// configuration, reads the streamed (or whole) GenerateContentResponse
// into llm chunks and an llm.Response, keeps Gemini's thought signatures
// in the message's llm.Continuation so the next turn can send them back on
// the same parts, and classifies failures as *llm.Error.
//
// It owns the Gemini wire format only. It must not retry (the SDK's own
// retries and automatic stream continuation are off: the engine decides),
// log, read the environment (the key and base URL come in Config, so the
// SDK never falls back to GEMINI_API_KEY or GOOGLE_GEMINI_BASE_URL on its
// own), or keep state between requests.
package google
