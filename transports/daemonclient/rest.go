package daemonclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// Client talks to one daemon.
type Client struct {
	URL   string
	Token string
	Home  string
	http  *http.Client
}

// Error is a REST answer with an error status and the protocol's
// {"error": ...} body.
type Error struct {
	Method, Path string
	Status       int
	Message      string
	Body         []byte // the whole body, for fields besides error
}

func (e *Error) Error() string {
	if e.Message == "" {
		return fmt.Sprintf("%s %s: %s", e.Method, e.Path, http.StatusText(e.Status))
	}
	return e.Message
}

// IsStatus reports err is a REST answer with that status.
func IsStatus(err error, status int) bool {
	var e *Error
	return errors.As(err, &e) && e.Status == status
}

// Health is GET /v1/health: the protocol's status and version, and
// troupe's pid and start time.
type Health struct {
	Status  string `json:"status"`
	Version string `json:"version"` // the Hydra release whose protocol it serves
	// TroupeVersion is troupe's own; empty from another daemon.
	TroupeVersion string    `json:"troupeVersion"`
	Home          string    `json:"home"`
	ConfigDigest  string    `json:"configDigest"`
	PID           int       `json:"pid"`
	StartedAt     time.Time `json:"startedAt"`
	// Cluster is set by a clustered troupe daemon.
	Cluster *ClusterHealth `json:"cluster,omitempty"`
}

// ClusterHealth is a clustered daemon's account of its cluster: its
// members and how many sessions each hosts (-1: it did not answer).
type ClusterHealth struct {
	Name    string `json:"name"`
	Self    string `json:"self"`
	Members []struct {
		ID       string `json:"id"`
		Address  string `json:"address"`
		Sessions int    `json:"sessions"`
	} `json:"members"`
}

// Health asks /v1/health (no auth).
func (c *Client) Health(ctx context.Context) (Health, error) {
	var h Health
	err := c.Do(ctx, http.MethodGet, "/v1/health", nil, &h)
	return h, err
}

// Do sends a request (body JSON-encoded unless nil, []byte or io.Reader)
// and decodes a JSON answer into out (unless out is nil); an error status
// is an *Error.
func (c *Client) Do(ctx context.Context, method, path string, body, out any) error {
	res, err := c.Send(ctx, method, path, body)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if out == nil {
		_, _ = io.Copy(io.Discard, res.Body)
		return nil
	}
	if err := json.NewDecoder(res.Body).Decode(out); err != nil {
		return fmt.Errorf("%s %s: decode the answer: %w", method, path, err)
	}
	return nil
}

// Send sends a request and returns a successful response for the caller
// to read and close; an error status is an *Error, its body read.
func (c *Client) Send(ctx context.Context, method, path string, body any) (*http.Response, error) {
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case []byte:
		r = bytes.NewReader(b)
	case io.Reader:
		r = b
	default:
		enc, err := json.Marshal(b)
		if err != nil {
			return nil, fmt.Errorf("encode request: %w", err)
		}
		r = bytes.NewReader(enc)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.URL+path, r)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	if r != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	res, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	if res.StatusCode < 400 {
		return res, nil
	}
	return nil, readError(method, path, res)
}

// readError reads and closes an error answer: the protocol's
// {"error": ...} body as an *Error.
func readError(method, path string, res *http.Response) *Error {
	defer res.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	e := &Error{Method: method, Path: path, Status: res.StatusCode, Body: b}
	var eb struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(b, &eb) == nil {
		e.Message = eb.Error
	}
	return e
}
