package daemon

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// TokenFile is the service token's file in the home.
const TokenFile = "auth-token"

// randomHex is n random bytes as hex.
func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // never fails on Linux (getrandom)
	return hex.EncodeToString(b)
}

// ServiceToken reads $home/auth-token, creating it (mode 0600) with a new
// random token on first start. A file with looser permissions is tightened,
// since anyone who can read it controls every session.
func ServiceToken(home string) (string, error) {
	path := filepath.Join(home, TokenFile)
	b, err := os.ReadFile(path)
	switch {
	case err == nil:
		tok := strings.TrimSpace(string(b))
		if tok == "" {
			return "", fmt.Errorf("service token %s is empty; remove it to make a new one", path)
		}
		if err := os.Chmod(path, 0o600); err != nil {
			return "", fmt.Errorf("service token %s: %w", path, err)
		}
		return tok, nil
	case !errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("read service token: %w", err)
	}
	tok := "troupe_token_" + randomHex(32)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", fmt.Errorf("create service token: %w", err)
	}
	if _, err := f.WriteString(tok + "\n"); err != nil {
		f.Close()
		return "", fmt.Errorf("write service token: %w", err)
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("write service token: %w", err)
	}
	return tok, nil
}
