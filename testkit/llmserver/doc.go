// Package llmserver is a scripted, OpenAI-compatible LLM server for tests.
//
// It owns one loopback HTTP server that speaks the wire format of a current
// llama.cpp llama-server (the "NEW" build described in troupe's reference
// notes) byte for byte: the same SSE framing, chunk fields and key order,
// role chunk, tool-call deltas, usage chunks and error bodies. Instead of a
// model it plays a Script: a list of replies, one per chat-completion
// request, consumed in arrival order, each reply a list of steps (text,
// thinking, native or text-tagged tool calls, usage, finish, HTTP errors,
// mid-stream errors, cut connections, delays, keep-alive comments). It also
// records every request it receives so a test can assert what its client
// sent. It does not interpret prompts, count tokens or validate tools: what
// the client sends never changes what the script says.
//
// # Serving
//
//	POST /v1/chat/completions  (alias /chat/completions) the scripted replies;
//	                           SSE when the body has "stream": true, else JSON
//	POST /v1/responses         (alias /responses) the same replies in OpenAI's
//	                           Responses API format (responses.go); SSE when
//	                           "stream": true, else one response object
//	GET  /v1/models            (alias /models) one model, Script.Model
//	GET  /props                chat_template_caps.supports_tool_calls and
//	                           supports_tools follow Script.SupportsToolCalls;
//	                           default_generation_settings.n_ctx is
//	                           Script.ContextSize
//	GET  /health               (alias /v1/health) {"status":"ok"}
//	POST /v1beta/models/{model}:streamGenerateContent?alt=sse
//	POST /v1beta/models/{model}:generateContent  (and under /v1) the same
//	                           replies in the Gemini API's wire format
//	                           (gemini.go says how each step goes out)
//
// One Script serves every wire format: a reply is taken in arrival order
// whichever route asked for it. ResponsesRequests and
// WaitResponsesRequests are ChatRequests and WaitChatRequests for the
// Responses route.
//
// The same Script is also served in the native wire formats, one file
// each, so one scenario can run against every provider:
//
//	POST /v1/messages          Anthropic's Messages API (anthropic.go): the
//	                           event stream its API reference documents
//	                           (message_start, content_block_start/delta/
//	                           stop, ping, message_delta, message_stop); a
//	                           thinking block ends with a signature_delta
//	                           (ThinkingSignature of its text); errors as
//	                           {"type":"error","error":{...}}, as HTTP
//	                           bodies (529 overloaded_error, Retry-After
//	                           from APIError.Header) or "event: error"
//	POST /model/{id}/invoke-with-response-stream
//	                           the same events for Bedrock (bedrock.go), as
//	                           AWS event-stream "chunk" frames; a SigV4
//	                           Authorization header is required; errors
//	                           with x-amzn-ErrorType, exception frames
//	POST /v1/projects/{p}/locations/{r}/publishers/anthropic/models/{m}:streamRawPredict
//	                           the same SSE for Vertex (vertex.go), with a
//	                           bearer token from POST /token, the token_uri
//	                           of the file WriteVertexCredentials writes
//
// Steps a wire format has no form for are left out of it (RedactedThinking
// on the OpenAI wire; Usage.CacheWriteTokens stays inside prompt_tokens).
//
// Anything else answers 404 with llama-server's not_found_error body.
// Script.Loading makes the first N requests (any route) answer 503 "Loading
// model", and Script.APIKey makes every route except /health require
// "Authorization: Bearer KEY" or "X-Api-Key: KEY", as llama-server does
// (on Gemini's routes "x-goog-api-key: KEY" or "?key=KEY", and the errors
// are Google's).
//
// # Example
//
//	func TestAgentReadsFile(t *testing.T) {
//		srv := llmserver.New(t, llmserver.Script{
//			Replies: []llmserver.Reply{
//				llmserver.Steps(
//					llmserver.Thinking("I should look at the file."),
//					llmserver.ToolCall("call_1", "read_file", `{"path":"go.mod"}`),
//				),
//				llmserver.Steps(
//					llmserver.Text("It is a Go module."),
//					llmserver.ReportUsage(llmserver.Usage{PromptTokens: 120, CompletionTokens: 6}),
//				),
//			},
//		})
//		runMyAgent(t, srv.URL()+"/v1") // your client under test
//
//		reqs := srv.ChatRequests()
//		if len(reqs) != 2 {
//			t.Fatalf("got %d chat requests, want 2", len(reqs))
//		}
//		if reqs[0].Header.Get("X-Session-ID") == "" {
//			t.Error("no session id sent")
//		}
//		var second struct {
//			Messages []struct {
//				Role       string `json:"role"`
//				ToolCallID string `json:"tool_call_id"`
//			} `json:"messages"`
//		}
//		if err := reqs[1].Decode(&second); err != nil {
//			t.Fatal(err)
//		}
//		last := second.Messages[len(second.Messages)-1]
//		if last.Role != "tool" || last.ToolCallID != "call_1" {
//			t.Errorf("last message %+v, want the result of call_1", last)
//		}
//	}
//
// # In-process provider
//
// NewProvider plays the same scripts without HTTP, as an llm.Provider, for
// tests that want an engine's behaviour rather than its wire traffic. What
// its Stream delivers (the chunks, their order, the assembled Response and
// the errors with their classification and wrapping) is what
// runtime/llm/openai delivers when the script is served by a Server: a
// tool call's first chunk carries its id (call_<index> when the script has
// none) and name, text tool calls arrive as text split as Split says,
// empty text is dropped, usage comes with the finish (the client always
// asks for it), HTTP and stream errors become the *llm.Error the client
// makes of them, and a disconnect is a retryable connection error before
// the response began, else a cut stream (llm.ErrStreamCut). Delays wait
// unless ctx ends first; keep-alives only mark the response as begun.
// Script.Loading counts calls; APIKey, ContextSize and SupportsToolCalls
// do not apply. Requests and WaitRequests return the llm.Request values it
// was called with (none under WithoutRecording, for benchmarks), and
// WithTest makes a call that finds the script exhausted fail the test. The Tokens step streams n one-token deltas in a
// tight loop that allocates nothing per delta, for benchmarks:
//
//	func TestEngineAnswers(t *testing.T) {
//		p, err := llmserver.NewProvider(llmserver.Script{
//			Replies: []llmserver.Reply{
//				llmserver.Steps(llmserver.ToolCall("", "read_file", `{"path":"go.mod"}`)),
//				llmserver.Steps(llmserver.Text("It is a Go module.")),
//			},
//		}, llmserver.WithTest(t))
//		if err != nil {
//			t.Fatal(err)
//		}
//		runMyEngine(t, p) // your code under test, given an llm.Provider
//		if reqs := p.Requests(); len(reqs) != 2 {
//			t.Fatalf("got %d requests, want 2", len(reqs))
//		}
//	}
//
// # Recording
//
// Every request is recorded as it arrives (method, path, query, headers,
// body, the body parsed as JSON) and completed when its answer ends (which
// reply it used, and its Outcome: ok, http_error, stream_error,
// disconnected or canceled). Requests and ChatRequests return copies;
// WaitRequests and WaitChatRequests block until n requests have arrived,
// and WaitDone until a given request has been answered, so a test can
// check, say, that its client abandoned a stream (OutcomeCanceled).
//
// # Streaming bytes
//
// A streamed reply is, in order: the role chunk
// ({"role":"assistant","content":null}), one chunk per output step, the finish
// chunk ("delta":{}), the usage chunk ("choices":[]) when it applies, and
// "data: [DONE]". Every frame is "data: <json>\n\n"; keep-alive steps write
// the comment frame ":\n\n". Each chunk carries "created", "id"
// ("chatcmpl-" and 32 letters or digits, derived from the request's position
// so runs are reproducible), "model" (the request's model, else
// Script.Model), "system_fingerprint":"b0-unknown" and
// "object":"chat.completion.chunk". A native tool call streams a first
// delta with its index, id (omitted when the id is empty, as llama-server
// does), name and "arguments":"", then one delta per arguments chunk.
//
// Usage is reported only when the reply has a usage step. Where it goes
// follows Usage.On: "auto" (the default) does what llama-server does, a
// separate "choices":[] chunk with usage and timings when the request set
// stream_options.include_usage, otherwise timings alone on the finish chunk;
// "finish" puts usage and timings on the finish chunk (older llama-server);
// "separate" always sends the extra chunk. Non-streaming responses carry
// usage and timings whenever there is a usage step.
//
// The finish reason defaults to "tool_calls" when the reply made a native
// tool call and "stop" otherwise.
//
// # Errors and failures
//
// An http_error step answers with its status and an OpenAI-shaped body,
// {"error":{"code":N,"message":"...","type":"..."}} (for 401, 404 and 503 the
// keys come as message, type, code, as llama-server orders them). A
// stream_error step writes data: {"error":{...}} and ends the response without
// [DONE]; in a non-streaming request it becomes an HTTP error. A disconnect
// step closes the TCP connection without finishing the response. Delays
// stop early when the client goes away or the server closes.
//
// A chat request that finds no reply left (and no Script.Default) gets a 500
// server_error whose message says the script is exhausted; a server made by
// New also fails the test. A body that is not JSON gets a 500, and one whose
// "messages" is not an array gets a 400; neither consumes a reply.
//
// # Script files
//
// LoadScript reads a script from a YAML or JSON file (JSON is YAML, so one
// parser serves both; object key order is kept, so tool arguments come out
// as written). Unknown keys are errors. A step is an object with exactly one
// key: text, tokens, thinking, tool_call, text_tool_call, usage, finish,
// http_error, stream_error, disconnect, delay or keepalive. A file using
// them all:
//
//	model: tiny                 # default "tiny"
//	context_size: 4096          # default 4096
//	supports_tool_calls: true   # /props chat_template_caps
//	api_key: secret             # optional
//	loading: 2                  # first 2 requests answer 503 Loading model
//	replies:
//	  - steps:
//	      - thinking: "let me look"
//	      - text: "Hello"
//	      - tokens: {count: 3, text: " la"}   # three deltas of " la"
//	      - tool_call: {id: call_1, name: read_file, arguments: {path: go.mod}}
//	      - tool_call: {name: run, chunks: ['{"cmd":', '"ls"}']}   # empty id
//	      - text_tool_call: {format: qwen, inner: json, name: run, args: {cmd: ls}, split: 4}
//	      - usage: {prompt_tokens: 10, completion_tokens: 5, cached_tokens: 2, reasoning_tokens: 1, on: auto}
//	      - finish: tool_calls
//	  - steps:
//	      - delay: 50ms
//	      - http_error: {status: 429, message: slow down, header: {Retry-After: "1"}}
//	  - steps:
//	      - keepalive: true
//	      - text: partial
//	      - delay: 1s
//	      - stream_error: {status: 500, message: boom}
//	  - steps:
//	      - text: partial
//	      - disconnect: true
//	default:                    # used once replies run out; omit to fail instead
//	  steps: [{text: done}]
//
// tool_call.arguments is either a string, used verbatim (so broken JSON can be
// scripted), or any other YAML/JSON value, sent as compact JSON. The
// text_tool_call formats are qwen (<tool_call>...</tool_call>), gemma
// (<|tool_call>...<tool_call|>) and pipe (<|tool_call|>...<|/tool_call|>);
// the inner forms are json ({"name":"run","args":{"cmd":"ls"}}), call
// (call:run{cmd: "ls"}) and call_json (call:run{"cmd": "ls"}). http_error and
// stream_error also take "type" (defaulted from the status), "extra" (an
// object whose members are appended inside "error") and, for http_error,
// "header" (extra response headers such as Retry-After).
//
// Step order rules, checked when the server starts: only delays may come
// before an http_error, and it must be the last step; stream_error and
// disconnect must be last; after finish only delay, keepalive, usage,
// stream_error and disconnect may follow.
//
// The fake-llama-server command (testkit/cmd/fake-llama-server) is this
// server as a process with llama-server's flags, for tests that start
// llama-server as a subprocess: --fake-script serves a script file, and
// past its replies it echoes (WithHold, WithReplier and WithMiddleware are
// what it builds on).
package llmserver
