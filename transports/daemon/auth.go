package daemon

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// Auth holds the credentials the daemon accepts: the service token and the
// session tokens logins minted. Session tokens live in memory only: a
// restart logs every browser out, and the service token stays valid.
type Auth struct {
	home    string
	service [sha256.Size]byte
	now     func() time.Time
	limiter *loginLimiter
	log     *slog.Logger
	conns   *conns // nil: connections are not tracked (unit tests)

	mu     sync.Mutex
	tokens map[string]*sessionToken // by id
	closed bool

	// Process, when set, accepts the per-process tokens of extensions and
	// transformers while their programs run. Whoever revokes one calls
	// Revoked, which closes the connections it opened.
	Process func(tok string) bool
	// public, when set, names the requests that need no credential
	// besides health and login: the web page's static files.
	public func(*http.Request) bool
	// Capability, when set, accepts the per-session capability tokens
	// the agent-facing /mcp/* routes take, on those routes only.
	Capability func(tok string) bool
}

// credKind is what sort of credential a request carried.
type credKind int

const (
	credService    credKind = iota // $TROUPE_HOME/auth-token
	credLogin                      // minted by POST /v1/auth/login
	credProcess                    // an extension's or transformer's, while it runs
	credCapability                 // a session's, for /mcp/* only
)

// cred is the credential a request was let in with; key names it for the
// connections bound to it ("" for those never revoked).
type cred struct {
	kind credKind
	id   string // the login token's id
	key  string
}

func loginKey(id string) string { return "login:" + id }

func processKey(tok string) string {
	d := sha256.Sum256([]byte(tok))
	return "process:" + hex.EncodeToString(d[:])
}

type sessionToken struct {
	id       string
	digest   [sha256.Size]byte // of the token; the token itself is not kept
	label    string
	created  time.Time
	expires  time.Time
	lastUsed time.Time
	timer    *time.Timer // ends it, and its connections, at expires
}

// NewAuth accepts serviceToken and the session tokens minted by logins
// against the password stored in home.
func NewAuth(home, serviceToken string) *Auth {
	return &Auth{
		home: home, service: sha256.Sum256([]byte(serviceToken)), now: time.Now,
		limiter: newLoginLimiter(), log: slog.Default(), tokens: map[string]*sessionToken{},
	}
}

// identify names the credential r carries, if any is valid: in an
// `Authorization: Bearer` header, a `hydra-acp-token.<token>` entry of
// Sec-WebSocket-Protocol, or a `token` query parameter (Presented).
// Capability tokens count only when capability is set (the /mcp/* routes).
func (a *Auth) identify(r *http.Request, capability bool) (cred, bool) {
	toks := Presented(r)
	for _, tok := range toks {
		if id, ok := a.check(tok); ok {
			if id == "" {
				return cred{kind: credService}, true
			}
			return cred{kind: credLogin, id: id, key: loginKey(id)}, true
		}
	}
	if a.Process != nil {
		for _, tok := range toks {
			if a.Process(tok) {
				return cred{kind: credProcess, key: processKey(tok)}, true
			}
		}
	}
	if capability && a.Capability != nil {
		for _, tok := range toks {
			if a.Capability(tok) {
				return cred{kind: credCapability}, true
			}
		}
	}
	return cred{}, false
}

// valid reports whether c still holds: it is checked again once a
// connection is bound to it, so a revocation between the two is not
// missed.
func (a *Auth) valid(c cred, r *http.Request) bool {
	switch c.kind {
	case credLogin:
		a.mu.Lock()
		t, ok := a.tokens[c.id]
		a.mu.Unlock()
		return ok && a.now().Before(t.expires)
	case credProcess:
		got, ok := a.identify(r, false)
		return ok && got.key == c.key
	}
	return true
}

// Revoked closes the connections opened with tok, a per-process token
// that was just revoked (its program ended).
func (a *Auth) Revoked(tok string) {
	if a.conns != nil && tok != "" {
		a.conns.drop(processKey(tok), nil)
	}
}

// Presented lists the tokens r offers, in the order they are tried.
func Presented(r *http.Request) []string {
	var out []string
	if h := r.Header.Get("Authorization"); len(h) > 7 && strings.EqualFold(h[:7], "bearer ") {
		out = append(out, strings.TrimSpace(h[7:]))
	}
	for _, line := range r.Header.Values("Sec-WebSocket-Protocol") {
		for _, p := range strings.Split(line, ",") {
			if tok, ok := strings.CutPrefix(strings.TrimSpace(p), "hydra-acp-token."); ok {
				out = append(out, tok)
			}
		}
	}
	if tok := r.URL.Query().Get("token"); tok != "" {
		out = append(out, tok)
	}
	return out
}

// check compares digests in constant time, against every token, so that
// neither a token's bytes nor which one matched shows in the timing.
func (a *Auth) check(tok string) (string, bool) {
	if tok == "" {
		return "", false
	}
	d := sha256.Sum256([]byte(tok))
	ok := subtle.ConstantTimeCompare(d[:], a.service[:]) == 1
	id := ""
	now := a.now()
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, t := range a.tokens {
		if now.After(t.expires) {
			delete(a.tokens, t.id)
			continue
		}
		if subtle.ConstantTimeCompare(d[:], t.digest[:]) == 1 {
			t.lastUsed, id, ok = now, t.id, true
		}
	}
	return id, ok
}

// mint makes a session token; it returns the token and its record. At
// its expiry a timer revokes it, closing the connections it opened.
func (a *Auth) mint(label string, ttl time.Duration) (string, sessionToken) {
	tok := "troupe_session_" + randomHex(32)
	now := a.now()
	t := &sessionToken{id: "tok_" + randomHex(8), digest: sha256.Sum256([]byte(tok)), label: label,
		created: now, expires: now.Add(ttl), lastUsed: now}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.tokens[t.id] = t
	if !a.closed {
		id := t.id
		t.timer = time.AfterFunc(ttl, func() { a.revoke(id, nil) })
	}
	return tok, *t
}

// revoke removes session token id and closes the connections it opened
// but except (the one asking, which closes after its answer); false when
// there is none.
func (a *Auth) revoke(id string, except *trackedConn) bool {
	a.mu.Lock()
	t, ok := a.tokens[id]
	if ok {
		delete(a.tokens, id)
		if t.timer != nil {
			t.timer.Stop()
		}
	}
	a.mu.Unlock()
	if a.conns != nil {
		a.conns.drop(loginKey(id), except)
	}
	return ok
}

// Close stops the expiry timers (the daemon is stopping).
func (a *Auth) Close() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.closed = true
	for _, t := range a.tokens {
		if t.timer != nil {
			t.timer.Stop()
		}
	}
}

// list is the unexpired session tokens, oldest first.
func (a *Auth) list() []sessionToken {
	now := a.now()
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]sessionToken, 0, len(a.tokens))
	for _, t := range a.tokens {
		if now.After(t.expires) {
			delete(a.tokens, t.id)
			continue
		}
		out = append(out, *t)
	}
	slices.SortFunc(out, func(a, b sessionToken) int { return a.created.Compare(b.created) })
	return out
}
