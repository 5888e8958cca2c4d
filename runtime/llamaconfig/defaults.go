package llamaconfig

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"gopkg.in/yaml.v3"
)

// Defaults are the settings shared by all configs and downloads, kept in
// $TROUPE_HOME/llama.yml: the Hugging Face token and endpoint model.add uses.
type Defaults struct {
	HFToken    string `yaml:"hf_token,omitempty" json:"hf_token,omitempty"`
	HFEndpoint string `yaml:"hf_endpoint,omitempty" json:"hf_endpoint,omitempty"`
}

// DefaultHFEndpoint is where model.add downloads from unless told otherwise.
const DefaultHFEndpoint = "https://huggingface.co"

// DefaultsPath is the defaults file in home.
func DefaultsPath(home string) string { return filepath.Join(home, "llama.yml") }

// ReadDefaults loads the defaults; a missing file is the zero Defaults.
func ReadDefaults(home string) (Defaults, error) {
	var d Defaults
	b, err := os.ReadFile(DefaultsPath(home))
	if errors.Is(err, os.ErrNotExist) {
		return d, nil
	}
	if err != nil {
		return d, fmt.Errorf("read defaults: %w", err)
	}
	if err := yaml.Unmarshal(b, &d); err != nil {
		return d, fmt.Errorf("parse %s: %w", DefaultsPath(home), err)
	}
	return d, nil
}

// WriteDefaults saves d, readable by the owner only (it holds a token).
func WriteDefaults(home string, d Defaults) error {
	b, err := yaml.Marshal(d)
	if err != nil {
		return fmt.Errorf("encode defaults: %w", err)
	}
	if err := os.WriteFile(DefaultsPath(home), b, 0o600); err != nil {
		return fmt.Errorf("write defaults: %w", err)
	}
	return nil
}

// Endpoint is the Hugging Face endpoint to use.
func (d Defaults) Endpoint() string {
	if d.HFEndpoint != "" {
		return d.HFEndpoint
	}
	return DefaultHFEndpoint
}
