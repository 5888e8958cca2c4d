package daemon

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"sort"
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

	mu     sync.Mutex
	tokens map[string]*sessionToken // by id

	// Process, when set, accepts the per-process tokens of extensions and
	// transformers while their programs run.
	Process func(tok string) bool
}

type sessionToken struct {
	id       string
	digest   [sha256.Size]byte // of the token; the token itself is not kept
	label    string
	created  time.Time
	expires  time.Time
	lastUsed time.Time
}

// NewAuth accepts serviceToken and the session tokens minted by logins
// against the password stored in home.
func NewAuth(home, serviceToken string) *Auth {
	return &Auth{
		home: home, service: sha256.Sum256([]byte(serviceToken)), now: time.Now,
		limiter: newLoginLimiter(), tokens: map[string]*sessionToken{},
	}
}

// Authorize reports whether r carries a valid token: an
// `Authorization: Bearer` header, a `hydra-acp-token.<token>` entry of
// Sec-WebSocket-Protocol, or a `token` query parameter.
func (a *Auth) Authorize(r *http.Request) bool {
	_, ok := a.identify(r)
	return ok
}

// identify returns the id of the session token r carries ("" for the
// service token) and whether r carries a valid token at all.
func (a *Auth) identify(r *http.Request) (string, bool) {
	toks := Presented(r)
	for _, tok := range toks {
		if id, ok := a.check(tok); ok {
			return id, true
		}
	}
	if a.Process != nil {
		for _, tok := range toks {
			if a.Process(tok) {
				return "", true
			}
		}
	}
	return "", false
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

// mint makes a session token; it returns the token and its record.
func (a *Auth) mint(label string, ttl time.Duration) (string, sessionToken) {
	tok := "troupe_session_" + randomHex(32)
	now := a.now()
	t := &sessionToken{id: "tok_" + randomHex(8), digest: sha256.Sum256([]byte(tok)), label: label,
		created: now, expires: now.Add(ttl), lastUsed: now}
	a.mu.Lock()
	a.tokens[t.id] = t
	a.mu.Unlock()
	return tok, *t
}

// revoke removes session token id; false when there is none.
func (a *Auth) revoke(id string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, ok := a.tokens[id]; !ok {
		return false
	}
	delete(a.tokens, id)
	return true
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
	sort.Slice(out, func(i, j int) bool { return out[i].created.Before(out[j].created) })
	return out
}
