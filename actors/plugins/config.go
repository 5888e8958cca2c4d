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
	// Skipped says why each entry left out of Extensions and Transformers
	// was (an invalid name, a missing command): the daemon warns of each
	// and runs the rest.
	Skipped []string `yaml:"-"`
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
	c.Extensions = c.valid(path, KindExtension, c.Extensions)
	c.Transformers = c.valid(path, KindTransformer, c.Transformers)
	return c, nil
}

// valid is list without its invalid entries, each noted in c.Skipped.
func (c *Config) valid(path, kind string, list []Spec) []Spec {
	kept := list[:0]
	for _, s := range list {
		if err := s.Validate(); err != nil {
			c.Skipped = append(c.Skipped, fmt.Sprintf("%s: %s %q skipped: %v", path, kind, s.Name, err))
			continue
		}
		kept = append(kept, s)
	}
	return kept
}
