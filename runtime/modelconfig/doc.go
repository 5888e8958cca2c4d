// Package modelconfig turns $TROUPE_HOME/models.yml, command-line flags and
// environment variables into the one provider endpoint and model settings a
// session talks to.
//
// It owns: the models.yml format and its validation, choosing a provider and
// model from a [Selection], the defaults for models the file does not list,
// the list of configured models (get_available_models, cycle_model), cost
// from token counts, tool styles and thinking levels.
//
// It must not touch: the network, processes, the session log, or flag
// parsing. It reads the environment only through the func it is handed, so
// callers and tests decide what the environment is.
//
// # models.yml
//
// Providers are keyed by name, in the order they should be listed and
// cycled; each lists its models. Unknown keys are errors, reported with the
// line they are on.
//
//	# used when neither --provider nor --model is given
//	default:
//	  provider: local
//	  model: qwen3-coder-30b        # may be "provider/model" with provider left out
//
//	providers:
//	  local:                        # llama-server: a loopback base_url needs no API key
//	    base_url: http://127.0.0.1:8080/v1
//	    models:
//	      - id: qwen3-coder-30b
//	        name: Qwen3 Coder 30B (local)
//	        context_window: 65536
//	        max_output_tokens: 8192
//	        tool_style: text        # native | text | auto (default auto)
//
//	  openrouter:
//	    base_url: https://openrouter.ai/api/v1
//	    api_key_env: OPENROUTER_API_KEY   # or api_key: sk-... (not both)
//	    headers:
//	      X-Title: troupe
//	    models:
//	      - id: anthropic/claude-sonnet-4
//	        name: Claude Sonnet 4
//	        context_window: 200000
//	        max_output_tokens: 16384
//	        thinking: true          # supports reasoning: levels off..high
//	        cost: {input: 3, output: 15, cache_read: 0.3, cache_write: 3.75}  # USD per million tokens
//
//	  openai:                       # OPENAI_BASE_URL and OPENAI_API_KEY fill what is left out
//	    models:
//	      - id: gpt-5-codex
//	        thinking: true
//	        max_thinking: xhigh     # highest thinking level offered (default high)
//
// testdata/models.yml is this example, kept loadable by the tests.
//
// # Resolution
//
// [Resolve] picks, in order of precedence:
//
//   - provider: Selection.Provider; the provider listing Selection.Model
//     (the default provider first; listed under two others is an error);
//     the provider prefix of a "provider/model" Selection.Model;
//     default.provider; openai when OPENAI_BASE_URL or OPENAI_API_KEY is
//     set; otherwise an error.
//   - model: Selection.Model; default.model when the provider is the default
//     one; the provider's first listed model; otherwise an error. A model the
//     file does not list gets [DefaultContextWindow] and tool style auto.
//   - base URL: Selection.BaseURL; the provider's base_url; for openai,
//     OPENAI_BASE_URL and then [DefaultOpenAIBaseURL].
//   - API key: Selection.APIKey; api_key; the variable named by api_key_env;
//     for openai, OPENAI_API_KEY. A base URL on this machine or a private
//     network needs none, because llama-server usually runs without one.
//
// The provider openai exists without any file; a file entry named openai
// overrides it field by field.
package modelconfig
