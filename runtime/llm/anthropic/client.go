package anthropic

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/troupehq/troupe/runtime/llm"
)

// Continuation provider names: the API each client speaks, so a
// continuation goes back only to the platform that wrote it (a signature
// from one platform is not promised to verify on another).
const (
	APIAnthropic = "anthropic"
	APIBedrock   = "bedrock"
	APIVertex    = "vertex"
)

// Config configures a Client.
type Config struct {
	// BaseURL overrides the API root (the SDK's default for the first-party
	// API, the region's endpoint for Bedrock and Vertex), e.g. a proxy or
	// a local fake.
	BaseURL string
	// APIKey is sent as x-api-key (first-party API only).
	APIKey string
	// Headers are sent with every request (before Request.Headers).
	Headers map[string]string
	// SupportsThinking says the model takes extended thinking; without it
	// the request's thinking level is not sent.
	SupportsThinking bool
	// DefaultMaxTokens is max_tokens when the request sets none (the API
	// requires one); 0 means 8192.
	DefaultMaxTokens int
	// HTTPClient defaults to a client with its own transport and no overall
	// timeout (cancel the context instead).
	HTTPClient *http.Client
}

// Client talks to one Messages API endpoint. It is safe for concurrent use.
type Client struct {
	api    string
	cfg    Config
	client sdk.Client
}

var _ llm.Provider = (*Client)(nil)

const defaultMaxTokens = 8192

// New returns a Client of Anthropic's own API.
func New(cfg Config) (*Client, error) {
	// The key goes as x-api-key, the header the API reference documents
	// (this SDK's WithAPIKey sends it as a bearer token, which proxies
	// built for the documented header do not read).
	var opts []option.RequestOption
	if cfg.APIKey != "" {
		opts = append(opts, option.WithHeader("X-Api-Key", cfg.APIKey))
	}
	if cfg.BaseURL != "" {
		base, err := checkBaseURL(cfg.BaseURL)
		if err != nil {
			return nil, err
		}
		opts = append(opts, option.WithBaseURL(base))
	}
	return newClient(APIAnthropic, cfg, opts...), nil
}

// newClient builds the SDK client with what every platform shares: no
// environment defaults, no SDK retries, the caller's HTTP client first (so
// a platform option can wrap it) and the platform's options after it.
func newClient(api string, cfg Config, platform ...option.RequestOption) *Client {
	hc := cfg.HTTPClient
	if hc == nil {
		hc = defaultHTTPClient()
	}
	opts := []option.RequestOption{
		option.WithoutEnvironmentDefaults(),
		option.WithMaxRetries(0),
		option.WithHTTPClient(hc),
	}
	opts = append(opts, platform...)
	for k, v := range cfg.Headers {
		opts = append(opts, option.WithHeader(k, v))
	}
	return &Client{api: api, cfg: cfg, client: sdk.NewClient(opts...)}
}

func defaultHTTPClient() *http.Client {
	return &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
}

func checkBaseURL(raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	if !strings.HasPrefix(raw, "http://") && !strings.HasPrefix(raw, "https://") {
		return "", fmt.Errorf("base url %q: want http(s)://host[:port][/path]", raw)
	}
	// The SDK appends v1/messages; a base given with /v1 would double it.
	return strings.TrimSuffix(strings.TrimSuffix(raw, "/"), "/v1"), nil
}

// Stream sends req and reads the streamed reply. Without req.Stream the
// reply still streams on the wire, and the sink gets it in one go at the
// end.
func (c *Client) Stream(ctx context.Context, req llm.Request, sink func(llm.Chunk) error) (*llm.Response, error) {
	params, err := c.params(req)
	if err != nil {
		// Nothing was sent: the request itself cannot be written, and
		// no retry changes that.
		return nil, &llm.Error{Type: "invalid_request_error", Message: "build the messages request", Err: err}
	}
	var opts []option.RequestOption
	for k, v := range req.Headers {
		opts = append(opts, option.WithHeader(k, v))
	}
	r := reader{api: c.api, a: llm.Assembler{Sink: sink}}
	if !req.Stream {
		r.a.Sink = nil
	}
	stream := c.client.Messages.NewStreaming(ctx, params, opts...)
	err = r.read(ctx, stream)
	_ = stream.Close() // the body is read or abandoned; closing it reports nothing new
	if err == nil && !r.done {
		err = errCut(nil)
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var sinkErr *sinkError
		if errors.As(err, &sinkErr) {
			return nil, sinkErr.err
		}
		return nil, classify(err, r.started)
	}
	out := r.response()
	if !req.Stream && sink != nil {
		if err := replay(out, sink); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// replay gives a sink the whole reply at once: the reasoning, the text,
// each tool call and the usage, one chunk each.
func replay(r *llm.Response, sink func(llm.Chunk) error) error {
	a := llm.Assembler{Sink: sink}
	if err := a.Text(llm.ChunkThinking, r.Message.Thinking); err != nil {
		return err
	}
	if err := a.Text(llm.ChunkText, r.Message.Content); err != nil {
		return err
	}
	for i, tc := range r.Message.ToolCalls {
		if err := a.ToolCall(i, tc.ID, tc.Name, tc.Arguments); err != nil {
			return err
		}
	}
	if r.Usage != nil {
		return a.SetUsage(*r.Usage)
	}
	return nil
}
