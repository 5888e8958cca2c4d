package fakellama

import (
	"crypto/rand"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Server is the fake's HTTP handler. It is safe for concurrent use.
type Server struct {
	opts    Options
	readyAt time.Time
	created int64

	held atomic.Bool // loading until SetReady, with Options.Hold

	mu      sync.Mutex
	next    int // index of the next scripted reply
	running int // completions in progress, for /slots
	served  atomic.Int64
	mux     *http.ServeMux
}

// New returns a server whose load starts now and lasts opts.LoadTime.
func New(opts Options) *Server {
	opts = opts.withDefaults()
	now := time.Now()
	s := &Server{opts: opts, readyAt: now.Add(opts.LoadTime), created: now.Unix(), mux: http.NewServeMux()}
	s.held.Store(opts.Hold)
	s.mux.HandleFunc("GET /health", s.health)
	s.mux.HandleFunc("GET /v1/health", s.health)
	s.mux.HandleFunc("GET /models", s.models)
	s.mux.HandleFunc("GET /v1/models", s.models)
	s.mux.HandleFunc("GET /props", s.props)
	s.mux.HandleFunc("GET /slots", s.slots)
	s.mux.HandleFunc("POST /v1/chat/completions", s.chat)
	s.mux.HandleFunc("POST /chat/completions", s.chat)
	s.mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) {
		writeError(w, http.StatusNotFound, "File Not Found")
	})
	return s
}

// Ready reports whether the load is over.
func (s *Server) Ready() bool { return !s.held.Load() && !time.Now().Before(s.readyAt) }

// SetReady ends a load held by Options.Hold.
func (s *Server) SetReady() { s.held.Store(false) }

// Completions is how many chat completions have begun.
func (s *Server) Completions() int { return int(s.served.Load()) }

// ServeHTTP answers like llama-server: 503 while loading, then the key
// check (every route but /health), then the route.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Server", "llama.cpp")
	w.Header()["Access-Control-Allow-Origin"] = []string{""}
	if !s.Ready() {
		writeError(w, http.StatusServiceUnavailable, "Loading model")
		return
	}
	if !s.authorized(r) {
		writeError(w, http.StatusUnauthorized, "Invalid API Key")
		return
	}
	s.mux.ServeHTTP(w, r)
}

func (s *Server) authorized(r *http.Request) bool {
	if len(s.opts.APIKeys) == 0 || r.URL.Path == "/health" || r.URL.Path == "/v1/health" {
		return true
	}
	got := r.Header.Get("X-Api-Key")
	if bearer, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		got = bearer
	}
	for _, k := range s.opts.APIKeys {
		if got == k {
			return true
		}
	}
	return false
}

func (s *Server) health(w http.ResponseWriter, _ *http.Request) {
	writeJSONBytes(w, http.StatusOK, []byte(`{"status":"ok"}`))
}

// completionID is chatcmpl- and 32 letters, as the real server makes them.
func completionID() string {
	const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b := make([]byte, 32)
	_, _ = rand.Read(b) // never fails on Linux
	for i := range b {
		b[i] = letters[int(b[i])%len(letters)]
	}
	return "chatcmpl-" + string(b)
}
