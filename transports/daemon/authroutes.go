package daemon

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/troupehq/troupe/runtime/metrics"
	"github.com/troupehq/troupe/transports/httpjson"
	"golang.org/x/crypto/bcrypt"
)

// Session tokens last DefaultTTL unless the login asks otherwise, and never
// longer than MaxTTL.
const (
	DefaultTTL = 24 * time.Hour
	MaxTTL     = 30 * 24 * time.Hour
)

func (a *Auth) register(mux *http.ServeMux) {
	mux.HandleFunc("POST /v1/auth/login", a.login)
	mux.HandleFunc("POST /v1/auth/logout", a.logout)
	mux.HandleFunc("GET /v1/auth/verify", a.verify)
	mux.HandleFunc("GET /v1/auth/sessions", a.sessions)
	mux.HandleFunc("DELETE /v1/auth/sessions/{id}", a.revokeRoute)
}

// Body deadlines. A login is read under a short total deadline: it is
// the one body read before its sender is known. An authenticated body
// must keep moving: each read has bodyIdle. A refused request's body is
// given refusedBodyGrace to be drained (a client that sent it whole
// reads its answer), then the connection is closed.
const (
	loginBodyTimeout = 5 * time.Second
	loginBodyMax     = 4 << 10
	bodyIdle         = 30 * time.Second
	refusedBodyGrace = time.Second
)

// wrap decides every request's credential from its headers, before any
// body is read: health and the web page's files (GET, no body) need none; login is its own check (a small body
// under a short deadline); /mcp/* takes a session's capability token;
// every other route a daemon token. A request with a credential binds its
// connection to it (so its revocation closes the connection) and takes it
// out of the unauthenticated pool.
func (a *Auth) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodGet && r.URL.Path == "/v1/health":
			next.ServeHTTP(w, r)
			return
		case a.public != nil && a.public(r):
			next.ServeHTTP(w, r)
			return
		case r.Method == http.MethodPost && r.URL.Path == "/v1/auth/login":
			limitBody(w, r, time.Now().Add(loginBodyTimeout), 0)
			next.ServeHTTP(w, r)
			return
		}
		mcp := strings.HasPrefix(r.URL.Path, "/mcp/")
		c, ok := a.identify(r, mcp)
		if !ok {
			metrics.AuthFailures.WithLabelValues("token").Inc()
			w.Header().Set("WWW-Authenticate", "Bearer")
			msg := "missing or invalid bearer token"
			if mcp { // the same for every name, registered or not
				msg = "missing or invalid capability token"
			}
			refuse(w, r, http.StatusUnauthorized, msg)
			return
		}
		if c.kind == credProcess && managesPlugins(r) {
			refuse(w, r, http.StatusForbidden, "an extension's or transformer's token may not manage extensions or transformers; "+
				"use the daemon's token or a login's")
			return
		}
		if c.kind == credProcess && managesLogins(r) {
			refuse(w, r, http.StatusForbidden, "an extension's or transformer's token may not list or revoke the user's logins; "+
				"use the daemon's token or a login's")
			return
		}
		if a.conns != nil {
			unbind := a.conns.bind(connOf(r), c.key)
			defer unbind()
			if !a.valid(c, r) { // revoked while being bound
				refuse(w, r, http.StatusUnauthorized, "missing or invalid bearer token")
				return
			}
		}
		limitBody(w, r, time.Time{}, bodyIdle)
		next.ServeHTTP(w, r)
	})
}

// managesPlugins reports whether r registers, changes, starts, stops or
// deletes an extension or transformer.
func managesPlugins(r *http.Request) bool {
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		return false
	}
	for _, p := range []string{"/v1/extensions", "/v1/transformers"} {
		if r.URL.Path == p || strings.HasPrefix(r.URL.Path, p+"/") {
			return true
		}
	}
	return false
}

// managesLogins reports whether r reads or revokes the user's login
// tokens: a program the user runs has no business logging the user out
// or learning when and from where they signed in.
func managesLogins(r *http.Request) bool {
	return r.URL.Path == "/v1/auth/sessions" || strings.HasPrefix(r.URL.Path, "/v1/auth/sessions/")
}

// hasBody reports whether r comes with a body to read.
func hasBody(r *http.Request) bool {
	return r.Body != nil && r.Body != http.NoBody && r.ContentLength != 0
}

// refuse answers an error without reading r's body: what is left of it
// gets refusedBodyGrace, then the connection closes.
func refuse(w http.ResponseWriter, r *http.Request, status int, msg string) {
	if hasBody(r) {
		_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(refusedBodyGrace))
		w.Header().Set("Connection", "close")
	}
	httpjson.Error(w, status, msg)
}

// limitBody puts r's body under a deadline: by (a total one), or idle
// for each read. The deadline is lifted once the body is read whole, so
// that it never cuts what follows (a stream, a hijacked WebSocket).
func limitBody(w http.ResponseWriter, r *http.Request, by time.Time, idle time.Duration) {
	if !hasBody(r) {
		return
	}
	rc := http.NewResponseController(w)
	if idle > 0 {
		by = time.Now().Add(idle)
	}
	_ = rc.SetReadDeadline(by)
	r.Body = &deadlineBody{ReadCloser: r.Body, rc: rc, idle: idle}
}

type deadlineBody struct {
	io.ReadCloser
	rc   *http.ResponseController
	idle time.Duration
	done bool
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	if b.done {
		return b.ReadCloser.Read(p)
	}
	if b.idle > 0 {
		_ = b.rc.SetReadDeadline(time.Now().Add(b.idle))
	}
	n, err := b.ReadCloser.Read(p)
	switch {
	case err == io.EOF:
		b.done = true
		_ = b.rc.SetReadDeadline(time.Time{})
	case err != nil:
		// What is left on the wire is never read: fail any later read
		// (the server's drain) at once.
		b.done = true
		_ = b.rc.SetReadDeadline(time.Now())
	}
	return n, err
}

type loginRequest struct {
	Password *string `json:"password"`
	Label    string  `json:"label"`
	TTLSec   int64   `json:"ttlSec"`
}

// login checks the master password and mints a session token. The
// limiter is asked before the body is read, and a slot is reserved
// before the compare: no more than loginChecks compares fail or run at
// once within loginWindow, from every address together.
func (a *Auth) login(w http.ResponseWriter, r *http.Request) {
	if full, wait := a.limiter.full(a.now()); full {
		tooMany(w, wait)
		return
	}
	var req loginRequest
	if err := httpjson.DecodeBody(w, r, &req, loginBodyMax, false); err != nil {
		httpjson.Error(w, http.StatusBadRequest, err.Error())
		return
	}
	if req.Password == nil {
		httpjson.Error(w, http.StatusBadRequest, "password is required")
		return
	}
	// ttlSec is checked in seconds, before it becomes a Duration: a value
	// near the int64 maximum overflowed into an expired token.
	ttl := DefaultTTL
	if req.TTLSec != 0 {
		if req.TTLSec < 1 || req.TTLSec > int64(MaxTTL/time.Second) {
			httpjson.Error(w, http.StatusBadRequest, fmt.Sprintf("ttlSec must be between 1 and %d (30 days), not %d",
				int64(MaxTTL/time.Second), req.TTLSec))
			return
		}
		ttl = time.Duration(req.TTLSec) * time.Second
	}
	hash, err := passwordHash(a.home)
	if err != nil {
		httpjson.Error(w, http.StatusInternalServerError, err.Error())
		return
	}
	if hash == nil {
		httpjson.Error(w, http.StatusForbidden, "no master password is set; run `troupe auth password`")
		return
	}
	done, n, ok, wait := a.limiter.reserve(a.now())
	if !ok {
		tooMany(w, wait)
		return
	}
	err = bcrypt.CompareHashAndPassword(hash, []byte(*req.Password))
	done(err == nil, a.now())
	if err != nil {
		if !errors.Is(err, bcrypt.ErrMismatchedHashAndPassword) {
			httpjson.Error(w, http.StatusInternalServerError, "stored password hash: "+err.Error())
			return
		}
		metrics.AuthFailures.WithLabelValues("password").Inc()
		a.log.Warn("login: wrong password", "check", n, "from", r.RemoteAddr)
		httpjson.Error(w, http.StatusUnauthorized, "invalid password")
		return
	}
	if a.conns != nil {
		a.conns.trust(connOf(r))
	}
	tok, t := a.mint(req.Label, ttl)
	httpjson.WriteJSON(w, http.StatusOK, map[string]any{"session_token": tok, "id": t.id, "expires_at": t.expires.UTC()})
}

func tooMany(w http.ResponseWriter, wait time.Duration) {
	metrics.AuthFailures.WithLabelValues("limited").Inc()
	w.Header().Set("Retry-After", strconv.Itoa(int((wait+time.Second-1)/time.Second)))
	httpjson.Error(w, http.StatusTooManyRequests, "too many failed logins; try again later")
}

type logoutRequest struct {
	ID string `json:"id"`
}

// logout revokes the named session token, or the caller's own; the service
// token is never revoked.
func (a *Auth) logout(w http.ResponseWriter, r *http.Request) {
	var req logoutRequest
	if err := httpjson.DecodeBody(w, r, &req, 64<<10, true); err != nil {
		httpjson.Error(w, http.StatusBadRequest, err.Error())
		return
	}
	id := req.ID
	if id == "" {
		c, _ := a.identify(r, false)
		id = c.id
	}
	revoked := id != "" && a.revoke(id, connOf(r))
	if revoked {
		w.Header().Set("Connection", "close") // this connection may be bound to it
	}
	httpjson.WriteJSON(w, http.StatusOK, map[string]bool{"revoked": revoked})
}

func (a *Auth) verify(w http.ResponseWriter, _ *http.Request) {
	httpjson.WriteJSON(w, http.StatusOK, map[string]bool{"ok": true})
}

type tokenInfo struct {
	ID         string    `json:"id"`
	Label      string    `json:"label"`
	CreatedAt  time.Time `json:"createdAt"`
	ExpiresAt  time.Time `json:"expiresAt"`
	LastUsedAt time.Time `json:"lastUsedAt"`
}

func (a *Auth) sessions(w http.ResponseWriter, _ *http.Request) {
	out := []tokenInfo{}
	for _, t := range a.list() {
		out = append(out, tokenInfo{ID: t.id, Label: t.label, CreatedAt: t.created.UTC(),
			ExpiresAt: t.expires.UTC(), LastUsedAt: t.lastUsed.UTC()})
	}
	httpjson.WriteJSON(w, http.StatusOK, map[string]any{"sessions": out})
}

func (a *Auth) revokeRoute(w http.ResponseWriter, r *http.Request) {
	if !a.revoke(r.PathValue("id"), connOf(r)) {
		httpjson.Error(w, http.StatusNotFound, "token "+r.PathValue("id")+" not found")
		return
	}
	w.Header().Set("Connection", "close") // this connection may be bound to it
	w.WriteHeader(http.StatusNoContent)
}
