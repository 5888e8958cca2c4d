package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"

	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/runtime/metrics"
)

// sessionCounts counts the sessions by state for a scrape: the live ones
// are asked for their state (a run under way or prompts queued makes one
// busy), the rest of the store's are cold.
func sessionCounts(c *sessions.Client) func(context.Context) (metrics.SessionCounts, error) {
	return func(ctx context.Context) (metrics.SessionCounts, error) {
		var n metrics.SessionCounts
		ids, err := c.Live(ctx)
		if err != nil {
			return n, err
		}
		total, err := c.Count(ctx)
		if err != nil {
			return n, err
		}
		for _, id := range ids {
			st, err := c.State(ctx, id)
			if err != nil {
				continue // stopped meanwhile: counted cold below
			}
			n.Queued += st.Queued
			if st.ActiveRun != "" || st.Queued > 0 {
				n.Busy++
			} else {
				n.Live++
			}
		}
		n.Cold = max(total-n.Live-n.Busy, 0)
		return n, nil
	}
}

// metricsServer is the plain-HTTP listener of --metrics-listen: /metrics
// alone, with no authentication (what it shows is counts and latencies,
// no session's content).
type metricsServer struct {
	srv  *http.Server
	ln   net.Listener
	done chan struct{}
}

// listenMetrics takes addr (a bare ":port" listens on loopback) and serves
// h at /metrics on it until Shutdown.
func listenMetrics(addr string, h http.Handler, log *slog.Logger) (*metricsServer, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("--metrics-listen %q: %w", addr, err)
	}
	if host == "" {
		addr = net.JoinHostPort("127.0.0.1", port)
	} else if !loopbackHost(host) {
		log.Warn("metrics are served without authentication off loopback", "listen", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--metrics-listen on %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", h)
	m := &metricsServer{ln: ln, done: make(chan struct{}), srv: &http.Server{
		Handler: mux, ReadHeaderTimeout: headerTimeout,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}}
	go func() {
		defer close(m.done)
		if err := m.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("metrics listener stopped", "error", err)
		}
	}()
	return m, nil
}

// URL is where the metrics listener answers.
func (m *metricsServer) URL() string { return "http://" + m.ln.Addr().String() }

// Shutdown stops the listener and waits for its goroutine.
func (m *metricsServer) Shutdown(ctx context.Context) error {
	err := m.srv.Shutdown(ctx)
	select {
	case <-m.done:
	case <-ctx.Done():
		return errors.Join(err, ctx.Err())
	}
	return err
}
