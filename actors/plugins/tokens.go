package plugins

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"sync"
)

// Identity is who presents a per-process token.
type Identity struct {
	Kind string // KindExtension | KindTransformer
	Name string
}

// Tokens holds the per-process tokens of the running programs, and the
// version each reported through its initialize. It is shared by the
// supervisors, the daemon's auth and the /acp connections, and only held
// for a map operation.
type Tokens struct {
	// OnRevoked, when set (before any program starts), hears each token
	// revoked, after the fact: the daemon closes the connections opened
	// with it, so a dead program's connection keeps no rights.
	OnRevoked func(tok string)

	mu       sync.Mutex
	byDigest map[[sha256.Size]byte]Identity
	versions map[Identity]string
}

// NewTokens returns an empty registry.
func NewTokens() *Tokens {
	return &Tokens{byDigest: map[[sha256.Size]byte]Identity{}, versions: map[Identity]string{}}
}

// mint makes a token for id, valid until revoke.
func (t *Tokens) mint(id Identity) string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // never fails on Linux (getrandom)
	tok := "troupe_process_" + hex.EncodeToString(b)
	t.mu.Lock()
	t.byDigest[sha256.Sum256([]byte(tok))] = id
	t.mu.Unlock()
	return tok
}

// revoke forgets tok and the version its process reported: the token dies
// with the process.
func (t *Tokens) revoke(tok string) {
	if tok == "" {
		return
	}
	t.mu.Lock()
	d := sha256.Sum256([]byte(tok))
	delete(t.versions, t.byDigest[d])
	delete(t.byDigest, d)
	t.mu.Unlock()
	if t.OnRevoked != nil {
		t.OnRevoked(tok)
	}
}

// Lookup names the process tok belongs to. Tokens are looked up by their
// SHA-256: the timing of the map says nothing of the token's bytes.
func (t *Tokens) Lookup(tok string) (Identity, bool) {
	if t == nil || tok == "" {
		return Identity{}, false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	id, ok := t.byDigest[sha256.Sum256([]byte(tok))]
	return id, ok
}

// SetVersion records the version the process id reported in initialize.
func (t *Tokens) SetVersion(id Identity, v string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.versions[id] = v
}

func (t *Tokens) version(id Identity) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.versions[id]
}
