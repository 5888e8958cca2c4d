package plugins

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"gopkg.in/yaml.v3"
)

// ConfigFile is the daemon's configuration in the home.
const ConfigFile = "config.yml"

// Config is the part of config.yml this package reads; other keys are
// left to their owners.
type Config struct {
	Extensions   []Spec `yaml:"extensions"`
	Transformers []Spec `yaml:"transformers"`
	// DefaultTransformers is the chain of a session whose session/new
	// names none.
	DefaultTransformers []string `yaml:"defaultTransformers"`
	// ClaimTimeout bounds a transformer's processing claim (e.g. "30s");
	// zero is the daemon's default.
	ClaimTimeout time.Duration `yaml:"claimTimeout"`
	// IdleEventTimeout is the quiet after which a session's transformers
	// hear session.idle; zero is the daemon's default.
	IdleEventTimeout time.Duration `yaml:"idleEventTimeout"`
}

// LoadConfig reads $home/config.yml; a missing file is an empty config.
func LoadConfig(home string) (Config, error) {
	var c Config
	path := filepath.Join(home, ConfigFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return c, fmt.Errorf("read %s: %w", path, err)
	}
	if err := yaml.Unmarshal(b, &c); err != nil {
		return c, fmt.Errorf("%s: %w", path, err)
	}
	for _, list := range [][]Spec{c.Extensions, c.Transformers} {
		for i := range list {
			if err := list[i].Validate(); err != nil {
				return c, fmt.Errorf("%s: %s %q: %w", path, "entry", list[i].Name, err)
			}
		}
	}
	return c, nil
}
