package runtime

import (
	"fmt"
	"os"
	"path/filepath"
)

// StoreFile is the store's name inside the data home.
const StoreFile = "troupe.db"

// ResolveHome picks the data home: the flag, else $TROUPE_HOME, else
// ~/.troupe.
func ResolveHome(flag string) (string, error) {
	if flag != "" {
		return filepath.Abs(flag)
	}
	if env := os.Getenv("TROUPE_HOME"); env != "" {
		return filepath.Abs(env)
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("find data home: set TROUPE_HOME or pass --home: %w", err)
	}
	return filepath.Join(home, ".troupe"), nil
}
