package google

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"google.golang.org/genai"

	"github.com/troupehq/troupe/runtime/llm"
)

// API is this provider's name, in llm.Continuation and in the providers
// table.
const API = "google"

// DefaultBaseURL is the Gemini API's root.
const DefaultBaseURL = "https://generativelanguage.googleapis.com"

// defaultAPIVersion is the version the Gemini API serves thinking,
// function-call ids and parametersJsonSchema under.
const defaultAPIVersion = "v1beta"

// Config configures a Client.
type Config struct {
	// BaseURL is the API's root (https://generativelanguage.googleapis.com)
	// or its versioned root (…/v1beta); empty means DefaultBaseURL.
	// Requests go to <root>/<version>/models/<model>:streamGenerateContent.
	BaseURL string
	// APIKey is sent as x-goog-api-key. Required: the Gemini API takes
	// nothing else, and an empty key would let the SDK read one from the
	// environment.
	APIKey string
	// Headers are sent with every request (before Request.Headers).
	Headers map[string]string
	// SupportsThinking says the model reasons; without it the request's
	// thinking level is not sent, since models that do not think reject a
	// thinking configuration.
	SupportsThinking bool
	// HTTPClient defaults to a client with its own transport and no overall
	// timeout (cancel the context instead). Its transport is wrapped to read
	// the headers of error answers (Retry-After).
	HTTPClient *http.Client
}

// Client talks to the Gemini API. It is safe for concurrent use.
type Client struct {
	cfg   Config
	genai *genai.Client
}

var _ llm.Provider = (*Client)(nil)

// New checks cfg and returns a Client. ctx is only used to build the SDK's
// client; nothing is sent.
func New(ctx context.Context, cfg Config) (*Client, error) {
	if cfg.APIKey == "" {
		return nil, errors.New("gemini: no API key (GEMINI_API_KEY)")
	}
	root, version, err := splitBaseURL(cmp.Or(strings.TrimSpace(cfg.BaseURL), DefaultBaseURL))
	if err != nil {
		return nil, err
	}
	hc := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	if cfg.HTTPClient != nil {
		c := *cfg.HTTPClient
		hc = &c
	}
	base := hc.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	hc.Transport = &recordingTransport{base: base}
	headers := http.Header{}
	for k, v := range cfg.Headers {
		headers.Set(k, v)
	}
	gc, err := genai.NewClient(ctx, &genai.ClientConfig{
		APIKey:     cfg.APIKey,
		Backend:    genai.BackendGeminiAPI,
		HTTPClient: hc,
		HTTPOptions: genai.HTTPOptions{
			BaseURL:    root,
			APIVersion: version,
			Headers:    headers,
		},
	})
	if err != nil {
		return nil, fmt.Errorf("gemini: %w", err)
	}
	return &Client{cfg: cfg, genai: gc}, nil
}

// splitBaseURL returns the root the SDK appends the version to, and the
// version: a base URL ending in a version segment (/v1beta, /v1) names it.
func splitBaseURL(raw string) (root, version string, err error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", "", fmt.Errorf("gemini: parse base url: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return "", "", fmt.Errorf("gemini: base url %q: want http(s)://host[:port][/path]", raw)
	}
	u.RawQuery, u.Fragment, u.RawPath = "", "", ""
	path := strings.TrimRight(u.Path, "/")
	version = defaultAPIVersion
	if i := strings.LastIndex(path, "/"); i >= 0 && isVersion(path[i+1:]) {
		version, path = path[i+1:], path[:i]
	}
	u.Path = path + "/"
	return u.String(), version, nil
}

// isVersion matches v1, v1beta, v1alpha, v2…
func isVersion(seg string) bool {
	if len(seg) < 2 || seg[0] != 'v' || seg[1] < '0' || seg[1] > '9' {
		return false
	}
	rest := strings.TrimLeft(seg[1:], "0123456789")
	return rest == "" || rest == "beta" || rest == "alpha"
}

// Stream implements llm.Provider. With req.Stream false the API answers in
// one document (generateContent), and its content still reaches sink (one
// chunk per part) before Stream returns.
func (c *Client) Stream(ctx context.Context, req llm.Request, sink func(llm.Chunk) error) (*llm.Response, error) {
	contents, cfg, err := c.encode(req)
	if err != nil {
		return nil, fmt.Errorf("gemini: %w", err)
	}
	rec := &exchange{}
	ctx = withExchange(ctx, rec)
	d := &decoder{a: llm.Assembler{Sink: sink}}
	if req.Stream {
		err = c.stream(ctx, req.Model, contents, cfg, d, rec)
	} else {
		err = c.complete(ctx, req.Model, contents, cfg, d, rec)
	}
	if err != nil {
		return nil, fmt.Errorf("gemini: %w", err)
	}
	return d.response(), nil
}

func (c *Client) stream(ctx context.Context, model string, contents []*genai.Content, cfg *genai.GenerateContentConfig, d *decoder, rec *exchange) error {
	done := ctx.Done()
	for resp, err := range c.genai.Models.GenerateContentStream(ctx, model, contents, cfg) {
		if err != nil {
			return classify(ctx, err, rec)
		}
		// The transport notices cancellation only when it next reads; frames
		// already buffered would otherwise still reach the sink.
		select {
		case <-done:
			return ctx.Err()
		default:
		}
		if err := d.add(resp); err != nil {
			return err
		}
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if broken := rec.broken(); broken != nil {
		return cutError(broken)
	}
	if !d.finished {
		return &llm.Error{Type: llm.TypeStreamCut, Retryable: true, Err: llm.ErrStreamCut}
	}
	return d.flushUsage()
}

func (c *Client) complete(ctx context.Context, model string, contents []*genai.Content, cfg *genai.GenerateContentConfig, d *decoder, rec *exchange) error {
	resp, err := c.genai.Models.GenerateContent(ctx, model, contents, cfg)
	if err == nil && ctx.Err() != nil {
		err = ctx.Err()
	}
	if err == nil && rec.broken() != nil {
		// The document broke off, yet what came of it parsed.
		err = rec.broken()
	}
	if err != nil {
		return classify(ctx, err, rec)
	}
	if err := d.add(resp); err != nil {
		return err
	}
	return d.flushUsage()
}
