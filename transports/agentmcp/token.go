package agentmcp

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"strings"
)

// Tokens mints and checks per-session capability tokens.
type Tokens struct{ key []byte }

// NewTokens signs with key (the daemon's service token).
func NewTokens(key string) Tokens { return Tokens{key: []byte(key)} }

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
