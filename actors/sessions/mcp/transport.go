package mcp

import (
	"context"
	"net/http"
	"runtime/debug"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	// terminateGrace is how long a stdio server gets to exit after its stdin
	// closes before SIGTERM, and again after SIGTERM before SIGKILL.
	terminateGrace = 2 * time.Second
	// waitDelay stops waiting for a stdio server's stderr once it has
	// exited, in case something that left its process group still holds the
	// pipe open.
	waitDelay = time.Second
)

// transport builds the SDK transport for a validated configuration; a
// stdio server's process has started.
func (c *conn) transport() (sdk.Transport, error) {
	if c.dial != nil {
		return c.dial()
	}
	switch c.cfg.Transport() {
	case TransportHTTP:
		return &sdk.StreamableClientTransport{Endpoint: c.cfg.URL, HTTPClient: httpClient(c.cfg.Headers)}, nil
	case TransportSSE:
		return &sdk.SSEClientTransport{Endpoint: c.cfg.URL, HTTPClient: httpClient(c.cfg.Headers)}, nil
	}
	return c.getChild().transport(c.markDead), nil
}

// newClient is this connection's client: its handlers feed the calls'
// progress and the tool list changes back to the connection.
func (c *conn) newClient() *sdk.Client {
	// No capabilities: troupe offers no roots, sampling or elicitation, and
	// the SDK would otherwise advertise roots.
	return sdk.NewClient(&sdk.Implementation{Name: "troupe", Version: version()},
		&sdk.ClientOptions{
			Capabilities: &sdk.ClientCapabilities{},
			ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
				c.progress.notify(req.Params)
			},
			ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
				c.toolsChanged()
			},
		})
}

func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "devel"
}

// httpClient sends the configured headers with every request. It has no
// overall timeout: the SSE streams it carries live as long as the session.
func httpClient(headers []HTTPHeader) *http.Client {
	if len(headers) == 0 {
		return &http.Client{}
	}
	h := http.Header{}
	for _, kv := range headers {
		h.Add(kv.Name, kv.Value)
	}
	return &http.Client{Transport: headerTransport{base: http.DefaultTransport, headers: h}}
}

type headerTransport struct {
	base    http.RoundTripper
	headers http.Header
}

func (t headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	// A RoundTripper must not modify the caller's request.
	req = req.Clone(req.Context())
	for k, vs := range t.headers {
		req.Header[k] = append([]string(nil), vs...)
	}
	return t.base.RoundTrip(req)
}
