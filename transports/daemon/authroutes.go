package daemon

import (
	"errors"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/troupehq/troupe/transports/rest"
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

// public are the routes served without the daemon's token: /mcp/* checks
// the per-session capability tokens itself.
func public(r *http.Request) bool {
	return (r.Method == http.MethodGet && r.URL.Path == "/v1/health") ||
		(r.Method == http.MethodPost && r.URL.Path == "/v1/auth/login") ||
		strings.HasPrefix(r.URL.Path, "/mcp/")
}

// wrap refuses every request without a valid token but the public routes.
func (a *Auth) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !public(r) && !a.Authorize(r) {
			w.Header().Set("WWW-Authenticate", "Bearer")
			rest.Error(w, http.StatusUnauthorized, "missing or invalid bearer token")
			return
		}
		next.ServeHTTP(w, r)
	})
}

type loginRequest struct {
	Password *string `json:"password"`
	Label    string  `json:"label"`
	TTLSec   int64   `json:"ttlSec"`
}

func clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

func (a *Auth) login(w http.ResponseWriter, r *http.Request) {
	ip, now := clientIP(r), a.now()
	if a.limiter.blocked(ip, now) {
		rest.Error(w, http.StatusTooManyRequests, "too many failed logins from this address; try again later")
		return
	}
	var req loginRequest
	if err := rest.DecodeBody(w, r, &req, 64<<10, false); err != nil {
		rest.Error(w, http.StatusBadRequest, err.Error())
		return
	}
	if req.Password == nil {
		rest.Error(w, http.StatusBadRequest, "password is required")
		return
	}
	if req.TTLSec < 0 {
		rest.Error(w, http.StatusBadRequest, "ttlSec must be positive")
		return
	}
	hash, err := passwordHash(a.home)
	if err != nil {
		rest.Error(w, http.StatusInternalServerError, err.Error())
		return
	}
	if hash == nil {
		rest.Error(w, http.StatusForbidden, "no master password is set; run `troupe auth password`")
		return
	}
	if err := bcrypt.CompareHashAndPassword(hash, []byte(*req.Password)); err != nil {
		if !errors.Is(err, bcrypt.ErrMismatchedHashAndPassword) {
			rest.Error(w, http.StatusInternalServerError, "stored password hash: "+err.Error())
			return
		}
		a.limiter.fail(ip, now)
		rest.Error(w, http.StatusUnauthorized, "invalid password")
		return
	}
	ttl := DefaultTTL
	if req.TTLSec > 0 {
		ttl = min(time.Duration(req.TTLSec)*time.Second, MaxTTL)
	}
	tok, t := a.mint(req.Label, ttl)
	rest.WriteJSON(w, http.StatusOK, map[string]any{"session_token": tok, "id": t.id, "expires_at": t.expires.UTC()})
}

type logoutRequest struct {
	ID string `json:"id"`
}

// logout revokes the named session token, or the caller's own; the service
// token is never revoked.
func (a *Auth) logout(w http.ResponseWriter, r *http.Request) {
	var req logoutRequest
	if err := rest.DecodeBody(w, r, &req, 64<<10, true); err != nil {
		rest.Error(w, http.StatusBadRequest, err.Error())
		return
	}
	id := req.ID
	if id == "" {
		id, _ = a.identify(r)
	}
	revoked := id != "" && a.revoke(id)
	rest.WriteJSON(w, http.StatusOK, map[string]bool{"revoked": revoked})
}

func (a *Auth) verify(w http.ResponseWriter, _ *http.Request) {
	rest.WriteJSON(w, http.StatusOK, map[string]bool{"ok": true})
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
	rest.WriteJSON(w, http.StatusOK, map[string]any{"sessions": out})
}

func (a *Auth) revokeRoute(w http.ResponseWriter, r *http.Request) {
	if !a.revoke(r.PathValue("id")) {
		rest.Error(w, http.StatusNotFound, "token "+r.PathValue("id")+" not found")
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
