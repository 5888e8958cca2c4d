package agentcatalog

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"
)

// The files Load reads in the home: Hydra's config.json (read unchanged)
// and troupe's own config.yml, whose "agents" section has the same fields.
const (
	hydraConfigFile  = "config.json"
	troupeConfigFile = "config.yml"
)

// localAgent is one entry of an "agents" map, the fields Hydra 0.1.161
// reads for a local agent.
type localAgent struct {
	Extends     string            `json:"extends" yaml:"extends"`
	Name        string            `json:"name" yaml:"name"`
	Description string            `json:"description" yaml:"description"`
	Command     string            `json:"command" yaml:"command"`
	Args        []string          `json:"args" yaml:"args"`
	Env         map[string]string `json:"env" yaml:"env"`
}

// override is config.json's agentOverrides entry: packageSpec pins a
// registry agent's npm package (Hydra's); sha256 gives the checksum of
// the current platform's archive when the registry names none (troupe's).
type override struct {
	PackageSpec string `json:"packageSpec"`
	SHA256      string `json:"sha256"`
}

// registryConfig is config.json's "registry" section. URL empty means no
// registry: troupe fetches nothing unless told where from (Hydra defaults
// to the public CDN; troupe does not reach the network by default).
type registryConfig struct {
	URL      string   `json:"url"`
	TTLHours *float64 `json:"ttlHours"`
	Pinned   bool     `json:"pinned"`
}

// defaultTTLHours is Hydra's: how long a fetched document stays fresh.
const defaultTTLHours = 24

// config is what the catalogue reads from a home.
type config struct {
	agents       map[string]localAgent
	overrides    map[string]override
	registry     registryConfig
	npmRegistry  string
	defaultAgent string
}

// readConfig reads home's config.json and config.yml; an id both name is
// config.yml's (troupe's own configuration wins over the one it shares
// with Hydra).
func readConfig(home string) (config, error) {
	c := config{agents: map[string]localAgent{}, overrides: map[string]override{}}
	path := filepath.Join(home, hydraConfigFile)
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return c, fmt.Errorf("read agents: %w", err)
	default:
		var raw struct {
			Agents         map[string]localAgent `json:"agents"`
			AgentOverrides map[string]override   `json:"agentOverrides"`
			Registry       registryConfig        `json:"registry"`
			NPMRegistry    string                `json:"npmRegistry"`
			DefaultAgent   string                `json:"defaultAgent"`
		}
		if err := json.Unmarshal(b, &raw); err != nil {
			return c, fmt.Errorf("read agents from %s: %w", path, err)
		}
		for id, a := range raw.Agents {
			c.agents[id] = a
		}
		for id, o := range raw.AgentOverrides {
			c.overrides[id] = o
		}
		c.registry, c.npmRegistry, c.defaultAgent = raw.Registry, raw.NPMRegistry, strings.TrimSpace(raw.DefaultAgent)
	}
	path = filepath.Join(home, troupeConfigFile)
	b, err = os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return c, c.validate()
	}
	if err != nil {
		return c, fmt.Errorf("read agents: %w", err)
	}
	var yml struct {
		Agents map[string]localAgent `yaml:"agents"`
	}
	if err := yaml.Unmarshal(b, &yml); err != nil {
		return c, fmt.Errorf("read agents from %s: %w", path, err)
	}
	for id, a := range yml.Agents {
		c.agents[id] = a
	}
	return c, c.validate()
}

func (c config) validate() error {
	if c.registry.URL != "" {
		if err := checkURL(c.registry.URL, true); err != nil {
			return fmt.Errorf("registry.url: %w", err)
		}
	}
	if c.registry.TTLHours != nil && *c.registry.TTLHours <= 0 {
		return fmt.Errorf("registry.ttlHours %v: must be positive", *c.registry.TTLHours)
	}
	if c.npmRegistry != "" {
		if err := checkURL(c.npmRegistry, false); err != nil {
			return fmt.Errorf("npmRegistry: %w", err)
		}
	}
	return nil
}

func (c config) ttlHours() float64 {
	if c.registry.TTLHours == nil {
		return defaultTTLHours
	}
	return *c.registry.TTLHours
}

// expandHome expands a leading ~/ or $HOME/ as Hydra does, so a local
// agent can name a script under the user's home portably.
func expandHome(s string) string {
	rest, ok := strings.CutPrefix(s, "~/")
	if !ok {
		rest, ok = strings.CutPrefix(s, "$HOME/")
	}
	if !ok {
		return s
	}
	h, err := os.UserHomeDir()
	if err != nil {
		return s
	}
	return filepath.Join(h, rest)
}
