package openai

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/troupehq/troupe/runtime/llm"
)

// Config configures a Client.
type Config struct {
	// BaseURL is the server root (http://127.0.0.1:8080) or its API root
	// (http://127.0.0.1:8080/v1); a trailing slash does not matter. When the
	// path ends in a version segment (/v1, /v2, ...) it is the API root and
	// the server root is the same URL without that segment; otherwise /v1 is
	// added to get the API root. Chat completions go to
	// <API root>/chat/completions and the model list to <API root>/models;
	// llama-server's /props and /health are read from the server root.
	BaseURL string
	// APIKey, when set, is sent as "Authorization: Bearer <key>".
	APIKey string
	// Headers are sent with every request (before Request.Headers).
	Headers map[string]string
	// SupportsThinking says the model takes reasoning_effort; without it the
	// request's thinking level is not sent, since some servers reject the
	// field for models that do not reason.
	SupportsThinking bool
	// PreserveThinking sends earlier assistant reasoning back as
	// reasoning_content. Off by default: DeepSeek's API rejects it, and
	// llama-server only uses it with templates that preserve reasoning.
	PreserveThinking bool
	// HTTPClient defaults to a client with its own transport and no overall
	// timeout (a stream may legitimately run for many minutes; cancel the
	// context instead).
	HTTPClient *http.Client
	// MaxLineBytes bounds one event-stream line; 0 means 16 MiB.
	MaxLineBytes int
}

// Client talks to one OpenAI-compatible server. It is safe for concurrent
// use.
type Client struct {
	cfg        Config
	http       *http.Client
	apiRoot    string
	serverRoot string
}

var _ llm.Provider = (*Client)(nil)

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

// New checks cfg and returns a Client.
func New(cfg Config) (*Client, error) {
	u, err := url.Parse(strings.TrimSpace(cfg.BaseURL))
	if err != nil {
		return nil, fmt.Errorf("parse base url: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("base url %q: want http(s)://host[:port][/path]", cfg.BaseURL)
	}
	u.RawQuery, u.Fragment = "", ""
	u.Path, u.RawPath = strings.TrimRight(u.Path, "/"), ""
	base := u.String()
	c := &Client{cfg: cfg, http: cfg.HTTPClient}
	if hasVersionSuffix(u.Path) {
		c.apiRoot = base
		c.serverRoot = base[:strings.LastIndex(base, "/v")]
	} else {
		c.apiRoot = base + "/v1"
		c.serverRoot = base
	}
	if c.http == nil {
		c.http = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	}
	return c, nil
}

// APIRoot is the URL chat completions and models are requested under.
func (c *Client) APIRoot() string { return c.apiRoot }

// ServerRoot is the URL llama-server's own endpoints are requested under.
func (c *Client) ServerRoot() string { return c.serverRoot }

// Stream implements llm.Provider. With req.Stream false the server answers
// in one document, and its content still reaches sink (one chunk per kind)
// before Stream returns.
func (c *Client) Stream(ctx context.Context, req llm.Request, sink func(llm.Chunk) error) (*llm.Response, error) {
	body, err := c.encodeRequest(req)
	if err != nil {
		return nil, fmt.Errorf("chat completions: %w", err)
	}
	// The request gets its own cancel so that draining the body after
	// [DONE] can be cut short without touching the caller's ctx.
	reqCtx, cancelReq := context.WithCancel(ctx)
	defer cancelReq()
	hreq, err := http.NewRequestWithContext(reqCtx, http.MethodPost, c.apiRoot+"/chat/completions", bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("chat completions: %w", err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	if req.Stream {
		hreq.Header.Set("Accept", "text/event-stream")
	} else {
		hreq.Header.Set("Accept", "application/json")
	}
	c.setHeaders(hreq, req.Headers)
	if req.SessionID != "" {
		// Spelled as the hugind spec does; Set would send X-Session-Id.
		hreq.Header["X-Session-ID"] = []string{req.SessionID}
	}
	resp, err := c.do(ctx, hreq)
	if err != nil {
		return nil, fmt.Errorf("chat completions: %w", err)
	}
	defer resp.Body.Close()
	a := &llm.Assembler{Sink: sink}
	if isEventStream(resp.Header.Get("Content-Type")) {
		err = decodeStream(ctx, resp.Body, a, c.cfg.MaxLineBytes)
		if err == nil {
			drain(resp.Body, cancelReq)
		}
	} else {
		err = decodeDocument(ctx, resp.Body, a)
	}
	if err != nil {
		return nil, fmt.Errorf("chat completions: %w", err)
	}
	return a.Response(), nil
}

func (c *Client) setHeaders(hreq *http.Request, extra map[string]string) {
	if c.cfg.APIKey != "" {
		hreq.Header.Set("Authorization", "Bearer "+c.cfg.APIKey)
	}
	for k, v := range c.cfg.Headers {
		hreq.Header.Set(k, v)
	}
	for k, v := range extra {
		hreq.Header.Set(k, v)
	}
}

// do sends hreq and returns a 2xx response, or the error classified.
// Cancellation is reported as the context's own error, not as a network
// failure, so callers can tell "we stopped" from "it broke".
func (c *Client) do(ctx context.Context, hreq *http.Request) (*http.Response, error) {
	resp, err := c.http.Do(hreq)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, llm.NetworkError(err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		defer resp.Body.Close()
		return nil, readHTTPError(resp)
	}
	return resp, nil
}

// drainLimit and drainWait bound the read after [DONE] that lets the
// connection be reused: servers end the body right after it, and one that
// does not is not worth waiting for.
const (
	drainLimit = 4 << 10
	drainWait  = 50 * time.Millisecond
)

func drain(body io.Reader, cancel context.CancelFunc) {
	t := time.AfterFunc(drainWait, cancel)
	defer t.Stop()
	_, _ = io.CopyN(io.Discard, body, drainLimit)
}

func isEventStream(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "text/event-stream"
}
