package main

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"time"
)

// reachTimeout bounds the check that a resumed run's model server answers.
const reachTimeout = 5 * time.Second

// reachable reports whether the server at baseURL accepts a connection. A
// resume checks it before it wakes the session: waking resumes the
// interrupted run, and a run whose first request finds no server ends in
// an error, leaving nothing for the next resume to continue.
func reachable(ctx context.Context, baseURL string) error {
	u, err := url.Parse(baseURL)
	if err != nil {
		return fmt.Errorf("base URL %s: %w", baseURL, err)
	}
	port := u.Port()
	if port == "" {
		port = "80"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	ctx, cancel := context.WithTimeout(ctx, reachTimeout)
	defer cancel()
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", net.JoinHostPort(u.Hostname(), port))
	if err != nil {
		return err
	}
	return c.Close()
}
