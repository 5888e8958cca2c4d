package llmserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// Server is a running scripted server. Its methods are safe for concurrent
// use.
type Server struct {
	cfg    config
	script compiled
	ln     net.Listener
	http   *http.Server
	rec    *recorder

	// cancel ends the parent of every request context, so that handlers
	// sleeping in a delay return at once when the server closes.
	cancel context.CancelFunc

	mu       sync.Mutex
	closing  bool
	handlers sync.WaitGroup
	loading  int  // 503 answers still to give
	held     bool // loading until SetReady (WithHold)
	next     int  // next entry of script.replies
	chats    int  // chat requests that asked for a reply, for ids
	tokens   int  // OAuth tokens issued (vertex.go)

	serveDone chan struct{}
	closeOnce sync.Once
	closeErr  error
}

// New starts a server for the test t and closes it when t ends. A script
// error fails t at once; a chat request that finds the script exhausted
// fails t too.
func New(t TB, script Script, opts ...Option) *Server {
	t.Helper()
	s, err := Start(script, append(slices.Clone(opts), func(c *config) { c.tb = t })...)
	if err != nil {
		t.Fatalf("llmserver: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("llmserver: %v", err)
		}
	})
	return s
}

// Start checks the script and starts serving it. Close the server when
// done.
func Start(script Script, opts ...Option) (*Server, error) {
	cfg := config{
		addr: "127.0.0.1:0",
		now:  time.Now,
		log:  slog.New(slog.DiscardHandler),
	}
	for _, o := range opts {
		o(&cfg)
	}
	c, err := compile(script)
	if err != nil {
		return nil, fmt.Errorf("check script: %w", err)
	}
	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", cfg.addr, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{
		cfg:       cfg,
		script:    c,
		ln:        ln,
		rec:       newRecorder(),
		cancel:    cancel,
		loading:   c.script.Loading,
		held:      cfg.hold,
		serveDone: make(chan struct{}),
	}
	var h http.Handler = http.HandlerFunc(s.serveHTTP)
	if cfg.wrap != nil {
		h = cfg.wrap(h)
	}
	s.http = &http.Server{
		Handler:           h,
		BaseContext:       func(net.Listener) context.Context { return ctx },
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          slog.NewLogLogger(cfg.log.Handler(), slog.LevelDebug),
	}
	go func() {
		defer close(s.serveDone)
		if err := s.http.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			cfg.log.Warn("llmserver stopped serving", "err", err)
		}
	}()
	return s, nil
}

// URL is the server's base URL, like http://127.0.0.1:41613 (no /v1).
func (s *Server) URL() string { return "http://" + s.ln.Addr().String() }

// SetReady ends the load of a server started WithHold.
func (s *Server) SetReady() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.held = false
}

// Close stops the server: it cancels the replies in progress, closes all
// connections and waits for every handler to return. Waiters get
// ErrClosed. Close may be called more than once.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closing = true
		s.mu.Unlock()
		s.cancel()
		if err := s.http.Close(); err != nil {
			s.closeErr = fmt.Errorf("close http server: %w", err)
		}
		s.handlers.Wait()
		<-s.serveDone
		s.rec.close()
	})
	return s.closeErr
}

// maxBody bounds what one request may make the server hold in memory.
const maxBody = 64 << 20

// serveHTTP is not the exported ServeHTTP so that a Server cannot be
// mounted on another http.Server, where Close could not wait for it.
func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		s.writeError(w, APIError{Status: http.StatusServiceUnavailable, Message: "llmserver: server is closing"})
		return
	}
	s.handlers.Add(1)
	loading := s.held || s.loading > 0
	if loading && !s.held {
		s.loading--
	}
	s.mu.Unlock()
	defer s.handlers.Done()

	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	seq := s.rec.add(recordOf(r, body))
	var out answer
	switch {
	case err != nil:
		out = s.failFor(r, w, APIError{Status: http.StatusBadRequest, Message: fmt.Sprintf("read body: %v", err)})
	case loading:
		out = s.failFor(r, w, APIError{Status: http.StatusServiceUnavailable, Message: "Loading model"})
	case !s.authorized(r):
		out = s.failFor(r, w, s.unauthorized(r))
	default:
		out = s.route(w, r, seq)
	}
	s.cfg.log.Debug("llmserver request", "seq", seq, "method", r.Method, "path", r.URL.Path, "reply", out.reply, "outcome", string(out.outcome))
	if s.cfg.onRequest != nil {
		final := s.rec.get(seq)
		final.Outcome, final.Reply = out.outcome, out.reply
		s.cfg.onRequest(final)
	}
	s.rec.update(seq, func(req *Request) {
		req.Outcome = out.outcome
		req.Reply = out.reply
	})
}

// answer is what a route reports back for the record.
type answer struct {
	outcome Outcome
	reply   int
}

func recordOf(r *http.Request, body []byte) Request {
	req := Request{
		Method:   r.Method,
		Path:     r.URL.Path,
		RawQuery: r.URL.RawQuery,
		Header:   r.Header.Clone(),
		Body:     body,
		Reply:    NoReply,
	}
	if obj, err := parseObject(body); err == nil {
		req.JSON = obj
	}
	return req
}

func (s *Server) authorized(r *http.Request) bool {
	keys := s.script.script.APIKey
	if keys == "" || r.URL.Path == "/health" || r.URL.Path == "/v1/health" {
		return true
	}
	for _, key := range strings.Split(keys, ",") {
		if r.Header.Get("Authorization") == "Bearer "+key || r.Header.Get("X-Api-Key") == key ||
			r.Header.Get("X-Goog-Api-Key") == key || r.URL.Query().Get("key") == key {
			return true
		}
	}
	return false
}

func (s *Server) route(w http.ResponseWriter, r *http.Request, seq int) answer {
	switch {
	case r.Method == http.MethodPost && (r.URL.Path == "/v1/chat/completions" || r.URL.Path == "/chat/completions"):
		return s.chat(w, r, seq)
	case r.Method == http.MethodPost && isGeminiPath(r.URL.Path):
		return s.gemini(w, r, seq)
	case r.Method == http.MethodPost && (r.URL.Path == "/v1/responses" || r.URL.Path == "/responses"):
		return s.responses(w, r, seq)
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages":
		return s.anthropicMessages(w, r, seq)
	case r.Method == http.MethodPost && isBedrockPath(r.URL.Path):
		return s.bedrockInvoke(w, r, seq)
	case r.Method == http.MethodPost && isVertexPath(r.URL.Path):
		return s.vertexPredict(w, r, seq)
	case r.Method == http.MethodPost && r.URL.Path == VertexTokenPath:
		return s.googleToken(w, seq)
	case r.Method == http.MethodGet && (r.URL.Path == "/health" || r.URL.Path == "/v1/health"):
		return s.writeOK(w, []byte(`{"status":"ok"}`))
	case r.Method == http.MethodGet && (r.URL.Path == "/v1/models" || r.URL.Path == "/models"):
		body, err := s.modelsBody()
		return s.writeInfo(w, body, err)
	case r.Method == http.MethodGet && r.URL.Path == "/props":
		body, err := s.propsBody()
		return s.writeInfo(w, body, err)
	}
	return s.fail(w, APIError{Status: http.StatusNotFound, Message: "File Not Found"})
}

// reportf fails the test of a server made by New, and logs otherwise.
func (s *Server) reportf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	s.cfg.log.Warn(msg)
	if s.cfg.tb != nil {
		s.cfg.tb.Errorf("%s", msg)
	}
}
