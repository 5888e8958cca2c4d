package daemon

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/troupehq/troupe/transports/httpjson"
	"github.com/troupehq/troupe/transports/rest"
	"github.com/troupehq/troupe/transports/web"
)

// AddrFile in the home holds the daemon's URL while it runs, for clients
// (and tests listening on port 0) to find it.
const AddrFile = "daemon.addr"

// Options configure the server.
type Options struct {
	Listen  string // host:port; default 127.0.0.1:55514
	Home    string
	TLSCert string // both or neither; required off loopback
	TLSKey  string
	// AllowedOrigins are browser origins let in besides the daemon's own
	// (a browser extension's, say), as scheme://host[:port].
	AllowedOrigins []string
	API            *rest.API
	// ACP serves /acp (the ACP WebSocket); nil leaves the route absent.
	ACP http.Handler
	// Web serves the web page at "/" and its files under /web/ (package
	// web), without authentication; nil leaves them absent.
	Web http.Handler
	// MCP serves /mcp (MCP over Streamable HTTP), that path alone; nil
	// leaves it absent.
	MCP http.Handler
	// Handlers are more routes by ServeMux pattern (the stdin ring's,
	// the agent-facing MCP servers').
	Handlers map[string]http.Handler
	Log      *slog.Logger
}

// headerTimeout bounds reading a request's headers.
const headerTimeout = 5 * time.Second

// DefaultListen is the protocol's default address.
const DefaultListen = "127.0.0.1:55514"

// Server is the daemon's listener and its HTTP server.
type Server struct {
	Auth *Auth
	url  string
	ln   net.Listener
	srv  *http.Server
	log  *slog.Logger
	addr string // the address file's path
	stop context.CancelFunc
	done chan error
}

// Listen checks opts, takes the port and writes the address file; Serve
// starts answering.
func Listen(opts Options) (*Server, error) {
	if opts.Listen == "" {
		opts.Listen = DefaultListen
	}
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	host, _, err := net.SplitHostPort(opts.Listen)
	if err != nil {
		return nil, fmt.Errorf("--listen %q: %w", opts.Listen, err)
	}
	if (opts.TLSCert == "") != (opts.TLSKey == "") {
		return nil, errors.New("--tls-cert and --tls-key go together")
	}
	useTLS := opts.TLSCert != ""
	loopback := loopbackHost(host) && host != ""
	if !loopback && !useTLS {
		return nil, fmt.Errorf("refusing to listen on %s without TLS: tokens would cross the network in clear; "+
			"listen on 127.0.0.1 or give --tls-cert and --tls-key", opts.Listen)
	}
	var cfg *tls.Config
	if useTLS {
		cert, err := tls.LoadX509KeyPair(opts.TLSCert, opts.TLSKey)
		if err != nil {
			return nil, fmt.Errorf("load TLS certificate: %w", err)
		}
		cfg = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	token, err := ServiceToken(opts.Home)
	if err != nil {
		return nil, err
	}
	raw, err := net.Listen("tcp", opts.Listen)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", opts.Listen, err)
	}
	cs := newConns(maxPending())
	var ln net.Listener = &listener{Listener: raw, cs: cs}
	scheme := "http"
	if cfg != nil {
		ln, scheme = tls.NewListener(ln, cfg), "https"
	}
	s := &Server{Auth: NewAuth(opts.Home, token), ln: ln, log: opts.Log, done: make(chan error, 1),
		url: scheme + "://" + ln.Addr().String(), addr: filepath.Join(opts.Home, AddrFile)}
	s.Auth.conns, s.Auth.log = cs, opts.Log
	base, stop := context.WithCancel(context.Background())
	s.stop = stop
	s.srv = &http.Server{
		Handler: newGuard(ln.Addr(), loopback, useTLS, opts.AllowedOrigins).wrap(s.Auth.wrap(s.routes(opts))),
		// Headers come whole within this or the connection is closed;
		// bodies have their own deadlines (Auth.wrap).
		ReadHeaderTimeout: headerTimeout,
		// Streams have no write deadline; idle keep-alive connections do.
		IdleTimeout: 2 * time.Minute,
		// Requests' contexts end when the daemon stops, so long streams
		// (history follow) end with it.
		BaseContext: func(net.Listener) context.Context { return base },
		ConnContext: connContext,
		ConnState:   cs.connState,
		ErrorLog:    slog.NewLogLogger(opts.Log.Handler(), slog.LevelWarn),
	}
	if err := os.WriteFile(s.addr, []byte(s.url+"\n"), 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("write %s: %w", s.addr, err)
	}
	return s, nil
}

func (s *Server) routes(opts Options) http.Handler {
	mux := http.NewServeMux()
	s.Auth.register(mux)
	opts.API.Register(mux)
	if opts.ACP != nil {
		mux.Handle("/acp", opts.ACP)
	}
	if opts.MCP != nil {
		mux.Handle("/mcp", opts.MCP)
	}
	if opts.Web != nil {
		s.Auth.public = web.Public
		mux.Handle("GET /{$}", opts.Web)
		mux.Handle("GET "+web.Prefix, opts.Web)
	}
	for pattern, h := range opts.Handlers {
		mux.Handle(pattern, h)
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		httpjson.Error(w, http.StatusNotFound, "no route "+r.Method+" "+r.URL.Path)
	})
	return mux
}

// URL is where the daemon answers, e.g. http://127.0.0.1:55514.
func (s *Server) URL() string { return s.url }

// Addr is the address the server listens on.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Serve answers requests in a goroutine until Shutdown; Done reports its end.
func (s *Server) Serve() {
	go func() {
		err := s.srv.Serve(s.ln)
		if errors.Is(err, http.ErrServerClosed) {
			err = nil
		}
		s.done <- err
	}()
}

// Done yields the server's error once it stopped serving (nil after Shutdown).
func (s *Server) Done() <-chan error { return s.done }

// Shutdown stops accepting, ends open streams, waits for requests under
// way until ctx ends, and removes the address file.
func (s *Server) Shutdown(ctx context.Context) error {
	s.stop()
	s.Auth.Close()
	err := s.srv.Shutdown(ctx)
	if b, rerr := os.ReadFile(s.addr); rerr == nil && strings.TrimSpace(string(b)) == s.url {
		_ = os.Remove(s.addr)
	}
	if err != nil {
		return fmt.Errorf("stop http server: %w", err)
	}
	return nil
}
