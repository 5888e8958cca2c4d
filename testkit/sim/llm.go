package sim

import (
	"context"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync"
	"time"

	"github.com/troupehq/troupe/testkit/llmserver"
)

// models serves every session's scripted model on one address, as the
// daemon has one base URL: a request goes to the session's own scripted
// server by its X-Session-ID, since a script's replies are consumed in
// arrival order. kill makes it behave like a llama-server that died and
// restarts: the streams under way are cut, and requests answer 503 while
// it is down.
type models struct {
	srv   *http.Server
	ln    net.Listener
	trans *http.Transport
	done  chan struct{}

	mu        sync.Mutex
	proxies   map[string]*httputil.ReverseProxy // by troupe session id
	servers   []*llmserver.Server
	gen       context.Context
	cut       context.CancelFunc
	downUntil time.Time
	kills     int
}

func startModels(addr string) (*models, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen for the scripted models: %w", err)
	}
	m := &models{ln: ln, done: make(chan struct{}), proxies: map[string]*httputil.ReverseProxy{},
		trans: &http.Transport{MaxIdleConnsPerHost: 256}}
	m.gen, m.cut = context.WithCancel(context.Background())
	m.srv = &http.Server{Handler: http.HandlerFunc(m.serve), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(m.done)
		_ = m.srv.Serve(ln)
	}()
	return m, nil
}

// URL is the base URL the daemon is given (without /v1).
func (m *models) URL() string { return "http://" + m.ln.Addr().String() }

// add starts session's scripted server.
func (m *models) add(session string, script llmserver.Script) error {
	srv, err := llmserver.Start(script)
	if err != nil {
		return fmt.Errorf("scripted model of %s: %w", session, err)
	}
	u, _ := url.Parse(srv.URL())
	p := httputil.NewSingleHostReverseProxy(u)
	p.Transport = m.trans
	p.ErrorLog = log.New(io.Discard, "", 0)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.servers = append(m.servers, srv)
	m.proxies[session] = p
	return nil
}

func (m *models) serve(w http.ResponseWriter, r *http.Request) {
	m.mu.Lock()
	gen, down := m.gen, time.Now().Before(m.downUntil)
	p := m.proxies[r.Header.Get("X-Session-ID")]
	m.mu.Unlock()
	switch {
	case down:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = io.WriteString(w, `{"error":{"code":503,"message":"Loading model","type":"unavailable_error"}}`)
		return
	case r.URL.Path == "/health" || r.URL.Path == "/props" || r.URL.Path == "/v1/models" || r.URL.Path == "/models":
		if p == nil {
			// Any session's server answers what is not a chat.
			m.mu.Lock()
			for _, q := range m.proxies {
				p = q
				break
			}
			m.mu.Unlock()
		}
	}
	if p == nil {
		http.Error(w, `{"error":{"code":500,"message":"no scripted model for this session","type":"server_error"}}`, http.StatusInternalServerError)
		return
	}
	ctx, stop := context.WithCancel(r.Context())
	defer stop()
	go func() {
		select {
		case <-gen.Done():
			stop()
		case <-ctx.Done():
		}
	}()
	p.ServeHTTP(w, r.WithContext(ctx))
}

// kill cuts every stream under way and answers 503 for d.
func (m *models) kill(d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.cut()
	m.gen, m.cut = context.WithCancel(context.Background())
	m.downUntil = time.Now().Add(d)
	m.kills++
}

// close stops serving and every scripted server.
func (m *models) close() {
	m.mu.Lock()
	m.cut()
	m.mu.Unlock()
	_ = m.srv.Close()
	<-m.done
	m.trans.CloseIdleConnections()
	for _, s := range m.servers {
		_ = s.Close()
	}
}
