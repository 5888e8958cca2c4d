package daemonclient

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"strings"
	"time"
)

// The files the daemon keeps in its home (transports/daemon's AddrFile and
// TokenFile; a test keeps them equal without this package importing it).
const (
	AddrFile  = "daemon.addr"
	TokenFile = "auth-token"
)

// Options say where the daemon is. URL and Token, when set, win over what
// the home's files say; the home's token is used only for the home's own
// daemon (see HomeToken).
type Options struct {
	// Home is the data home as troupe picks it (boot.HomePath, which this
	// package does not import: it stays free of the runtime); it may be
	// empty when URL is set.
	Home  string
	URL   string // e.g. http://127.0.0.1:55514
	Token string
	// HTTP is the client requests go through; nil: a default one.
	HTTP *http.Client
}

// NotRunningError says no daemon answered; its message names the fix.
type NotRunningError struct {
	Home string
	URL  string // empty when the home names none
	Err  error
}

func (e *NotRunningError) Error() string {
	if e.URL == "" {
		return fmt.Sprintf("no troupe daemon is running for %s: start one with `troupe daemon start`", e.Home)
	}
	return fmt.Sprintf("no troupe daemon answers at %s: start one with `troupe daemon start` (or pass the right --url)", e.URL)
}

func (e *NotRunningError) Unwrap() error { return e.Err }

// healthWait bounds the health check of Discover.
const healthWait = 5 * time.Second

// Discover finds the daemon and checks it answers /v1/health.
func Discover(ctx context.Context, opts Options) (*Client, error) {
	home := opts.Home
	if home == "" && opts.URL == "" {
		return nil, errors.New("find the daemon: no data home given")
	}
	c := &Client{URL: strings.TrimRight(opts.URL, "/"), Token: opts.Token, Home: home, http: opts.HTTP}
	if c.http == nil {
		c.http = &http.Client{}
	}
	if c.URL == "" {
		own, err := homeAddr(home)
		if err != nil {
			return nil, err
		}
		if own == "" {
			return nil, &NotRunningError{Home: home, Err: fs.ErrNotExist}
		}
		c.URL = own
	}
	if c.Token == "" && home != "" {
		// Before any request: a URL not the home's gets no token of it.
		t, err := HomeToken(home, c.URL)
		if err != nil {
			return nil, err
		}
		c.Token = t
	}
	hctx, cancel := context.WithTimeout(ctx, healthWait)
	defer cancel()
	if _, err := c.Health(hctx); err != nil {
		return nil, &NotRunningError{Home: home, URL: c.URL, Err: err}
	}
	return c, nil
}
