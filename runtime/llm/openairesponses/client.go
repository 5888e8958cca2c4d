package openairesponses

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/responses"

	"github.com/troupehq/troupe/runtime/llm"
)

// API is this provider's name in llm.Continuation, the same as
// providers.APIOpenAIResponses.
const API = "openai-responses"

// DefaultBaseURL is OpenAI's own API root.
const DefaultBaseURL = "https://api.openai.com/v1"

// Config configures a Client.
type Config struct {
	// BaseURL is the API root (https://api.openai.com/v1) or the server
	// root; when its path does not end in a version segment (/v1, /v2, ...)
	// /v1 is added, as runtime/llm/openai does. Empty means DefaultBaseURL.
	// Responses go to <API root>/responses.
	BaseURL string
	// APIKey, when set, is sent as "Authorization: Bearer <key>".
	APIKey string
	// Headers are sent with every request (before Request.Headers).
	Headers map[string]string
	// SupportsThinking says the model reasons: the request then asks for
	// reasoning summaries and the encrypted reasoning items (which a model
	// that does not reason rejects), and sends the thinking level as
	// reasoning.effort.
	SupportsThinking bool
	// HTTPClient defaults to a client with its own transport and no overall
	// timeout (cancel the context instead).
	HTTPClient *http.Client
}

// Client talks to one Responses API endpoint. It is safe for concurrent
// use.
type Client struct {
	cfg     Config
	apiRoot string
	svc     responses.ResponseService
}

var _ llm.Provider = (*Client)(nil)

// New checks cfg and returns a Client.
func New(cfg Config) (*Client, error) {
	root, err := apiRoot(cfg.BaseURL)
	if err != nil {
		return nil, err
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	}
	opts := []option.RequestOption{
		option.WithBaseURL(root + "/"),
		option.WithHTTPClient(hc),
		// The run decides retries, and waits what a 429 asked for.
		option.WithMaxRetries(0),
		option.WithMiddleware(classify),
	}
	if cfg.APIKey != "" {
		opts = append(opts, option.WithAPIKey(cfg.APIKey))
	}
	for k, v := range cfg.Headers {
		opts = append(opts, option.WithHeader(k, v))
	}
	// NewResponseService, unlike openai.NewClient, reads no environment.
	return &Client{cfg: cfg, apiRoot: root, svc: responses.NewResponseService(opts...)}, nil
}

// APIRoot is the URL responses are requested under.
func (c *Client) APIRoot() string { return c.apiRoot }

// apiRoot normalises a base URL the way runtime/llm/openai does.
func apiRoot(base string) (string, error) {
	base = strings.TrimSpace(base)
	if base == "" {
		return DefaultBaseURL, nil
	}
	u, err := url.Parse(base)
	if err != nil {
		return "", fmt.Errorf("parse base url: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return "", fmt.Errorf("base url %q: want http(s)://host[:port][/path]", base)
	}
	u.RawQuery, u.Fragment = "", ""
	u.Path, u.RawPath = strings.TrimRight(u.Path, "/"), ""
	if !hasVersionSuffix(u.Path) {
		u.Path += "/v1"
	}
	return u.String(), nil
}

// hasVersionSuffix reports whether path ends in a /v<digits> segment.
func hasVersionSuffix(path string) bool {
	i := strings.LastIndex(path, "/v")
	if i < 0 || i+2 == len(path) {
		return false
	}
	for _, c := range path[i+2:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// Stream implements llm.Provider. The request always streams on the wire;
// with req.Stream false the chunks reach sink together once the reply is
// complete, one per kind (and one per tool call).
func (c *Client) Stream(ctx context.Context, req llm.Request, sink func(llm.Chunk) error) (*llm.Response, error) {
	params, err := newParams(req, c.cfg.SupportsThinking)
	if err != nil {
		return nil, fmt.Errorf("responses: %w", err)
	}
	opts := make([]option.RequestOption, 0, len(req.Headers)+2)
	for k, v := range req.Headers {
		opts = append(opts, option.WithHeader(k, v))
	}
	var raw *http.Response
	opts = append(opts, option.WithJSONSet("stream", true), option.WithResponseBodyInto(&raw))
	if _, err := c.svc.New(ctx, params, opts...); err != nil {
		return nil, fmt.Errorf("responses: %w", requestError(ctx, err))
	}
	defer raw.Body.Close()
	r := reader{a: llm.Assembler{Sink: sink}}
	if !req.Stream {
		r.a.Sink = nil
	}
	if err := r.read(ctx, ssestream.NewDecoder(raw)); err != nil {
		return nil, fmt.Errorf("responses: %w", err)
	}
	resp := r.response()
	if !req.Stream {
		if err := replay(resp, sink); err != nil {
			return nil, fmt.Errorf("responses: %w", err)
		}
	}
	return resp, nil
}

// replay hands a whole reply to sink at once, for a request that did not
// ask for deltas.
func replay(r *llm.Response, sink func(llm.Chunk) error) error {
	if sink == nil {
		return nil
	}
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
