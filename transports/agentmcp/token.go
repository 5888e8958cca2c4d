package agentmcp

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"strings"
)

// Tokens mints and checks per-session capability tokens.
type Tokens struct{ key []byte }

// NewTokens signs with key.
func NewTokens(key string) Tokens { return Tokens{key: []byte(key)} }

// NewRunTokens signs with a key drawn now and kept only in memory: the
// daemon makes one per run, so its tokens are dead once it stops, wherever
// they were written down (the store's session.created, an export, a log).
func NewRunTokens() Tokens { return NewTokens(rand.Text() + rand.Text()) }

// macLen is the length of a token's signature: a SHA-256, base64url.
var macLen = base64.RawURLEncoding.EncodedLen(sha256.Size)

func (t Tokens) mac(sessionID string) string {
	m := hmac.New(sha256.New, t.key)
	m.Write([]byte("hydra-acp-mcp\x00" + sessionID))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// Mint is session id's token: "<id>.<mac>".
func (t Tokens) Mint(sessionID string) string { return sessionID + "." + t.mac(sessionID) }

// Check returns the session a token was minted for.
func (t Tokens) Check(token string) (string, bool) {
	i := strings.LastIndexByte(token, '.')
	if i <= 0 {
		return "", false
	}
	id := token[:i]
	return id, hmac.Equal([]byte(token[i+1:]), []byte(t.mac(id)))
}

// MintedFor reports whether token has the form Mint gives session id's
// token, under any key: how the daemon knows an entry it injected into a
// session's mcpServers in an earlier run (whose key is gone) to mint it
// anew. It proves nothing about who wrote it, and authorizes nothing.
func MintedFor(token, sessionID string) bool {
	mac, ok := strings.CutPrefix(token, sessionID+".")
	if !ok || sessionID == "" || len(mac) != macLen {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(mac)
	return err == nil
}
