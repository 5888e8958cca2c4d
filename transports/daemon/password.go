package daemon

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/crypto/bcrypt"
)

// PasswordFile holds the master password's bcrypt hash, never the password.
const PasswordFile = "auth-password"

// passwordCost is bcrypt's work factor (the library's default is 10): each
// check costs 2^11 rounds, which with the login rate limit makes guessing
// slow.
const passwordCost = 11

// maxPassword is bcrypt's own limit: it ignores bytes past 72.
const maxPassword = 72

// SetPassword stores the hash of password in $home/auth-password (0600).
func SetPassword(home, password string) error {
	if password == "" {
		return errors.New("the password is empty")
	}
	if len(password) > maxPassword {
		return fmt.Errorf("the password is longer than %d bytes", maxPassword)
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(password), passwordCost)
	if err != nil {
		return fmt.Errorf("hash password: %w", err)
	}
	path := filepath.Join(home, PasswordFile)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(hash, '\n'), 0o600); err != nil {
		return fmt.Errorf("store password hash: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("store password hash: %w", err)
	}
	return nil
}

// passwordHash reads the stored hash; nil when no password was set.
func passwordHash(home string) ([]byte, error) {
	b, err := os.ReadFile(filepath.Join(home, PasswordFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read password hash: %w", err)
	}
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b, nil
}
