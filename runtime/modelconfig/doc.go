// Package modelconfig turns $TROUPE_HOME/models.yml, command-line flags and
// environment variables into the one provider endpoint and model settings a
// session talks to.
//
// It owns: the models.yml format and its validation, choosing a provider and
// model from a [Selection], the built-in providers (openai, anthropic,
// google, bedrock, vertex) with their environment variables and catalogs
// of current models, the defaults for models nothing lists, the list of
// models a client may choose ([Config.Available]), cost from token counts,
// tool styles and thinking levels.
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
//	        api: openai-responses   # this model's API, when not its provider's
//	        thinking: true
//	        max_thinking: xhigh     # highest thinking level offered (default high)
//
//	  claude-work:                  # any name; api: says which wire format it speaks
//	    api: anthropic              # openai (default) | openai-responses | anthropic | google | bedrock | vertex
//	    api_key_env: WORK_ANTHROPIC_KEY
//
//	  bedrock:
//	    region: eu-west-1           # bedrock and vertex: region; vertex: project
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
//     one; the provider's first model in the file; its catalog's default
//     (a built-in provider's, or that of the native API it speaks; not for
//     openai pointed at another server, whose models the catalog does not
//     know); otherwise an error. A model
//     neither the file nor the catalog lists gets [DefaultContextWindow]
//     and tool style auto.
//   - API: the model's api; the provider's api; the built-in provider's
//     of the same name; openai.
//   - base URL: Selection.BaseURL; the provider's base_url; the built-in
//     provider's variable; its public endpoint (a native API's under
//     another name too). Bedrock and vertex may have none: their region
//     implies it.
//   - API key: Selection.APIKey; api_key; the variable named by api_key_env;
//     the built-in provider's variable. A base URL on this machine or a
//     private network needs none, because llama-server usually runs
//     without one; bedrock and vertex sign with their credential chains.
//   - region and project (bedrock, vertex): region and project under the
//     provider; the platform's variables.
//
// # Built-in providers
//
// They exist without any file and read these variables (the aionrs JSON
// stream spec's, pi's, and the ones the providers' SDKs read):
//
//   - openai: OPENAI_API_KEY, OPENAI_BASE_URL
//   - anthropic: ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL
//   - google: GEMINI_API_KEY or GOOGLE_API_KEY, GOOGLE_GEMINI_BASE_URL
//   - bedrock: AWS_REGION or AWS_DEFAULT_REGION; AWS_ACCESS_KEY_ID,
//     AWS_SECRET_ACCESS_KEY, AWS_PROFILE (the AWS credential chain);
//     AWS_ENDPOINT_URL_BEDROCK_RUNTIME or AWS_ENDPOINT_URL
//   - vertex: VERTEX_PROJECT_ID or GOOGLE_CLOUD_PROJECT, VERTEX_REGION or
//     CLOUD_ML_REGION; GOOGLE_APPLICATION_CREDENTIALS (application default
//     credentials)
//
// Each brings a catalog of current models ([Catalog]: context window,
// output limit, thinking, prices), its default first. A file entry with a
// built-in provider's name overrides the provider's settings, and a model
// it lists with a catalog id replaces that catalog entry whole (the
// catalog's other models stay): a partial entry could not say "no
// thinking" or "free". Anthropic's dated ids (claude-sonnet-4-5-20250929)
// and Bedrock's cross-region profiles (us.anthropic...) find their
// catalog entry. A provider of another name on a native API (api:
// anthropic) has that API's catalog the same way.
package modelconfig
