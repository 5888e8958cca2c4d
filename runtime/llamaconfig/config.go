package llamaconfig

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"gopkg.in/yaml.v3"
)

// Config is one llama-server's settings. Zero values mean "llama-server's
// or troupe's default" as the package documentation says.
type Config struct {
	ModelPath  string    `yaml:"model_path" json:"model_path"`
	MmprojPath string    `yaml:"mmproj_path,omitempty" json:"mmproj_path,omitempty"`
	Ctx        int       `yaml:"ctx" json:"ctx"`
	Slots      int       `yaml:"n_slots" json:"n_slots"`
	Threads    int       `yaml:"threads,omitempty" json:"threads,omitempty"`
	GPULayers  string    `yaml:"gpu_layers,omitempty" json:"gpu_layers,omitempty"`
	Fit        Fit       `yaml:"fit,omitempty" json:"fit"`
	Host       string    `yaml:"host" json:"host"`
	Port       int       `yaml:"port,omitempty" json:"port,omitempty"`
	APIKey     string    `yaml:"api_key,omitempty" json:"api_key,omitempty"`
	ServerPath string    `yaml:"server_path,omitempty" json:"server_path,omitempty"`
	ExtraArgs  []string  `yaml:"extra_args,omitempty" json:"extra_args,omitempty"`
	Sampling   *Sampling `yaml:"sampling,omitempty" json:"sampling,omitempty"`
	ToolStyle  string    `yaml:"tool_style,omitempty" json:"tool_style,omitempty"`
}

// Fit is llama-server's --fit: let it fill unset options to fit the
// devices' memory, leaving target_mib free on each device.
type Fit struct {
	Enabled   bool  `yaml:"enabled" json:"enabled"`
	TargetMiB []int `yaml:"target_mib,omitempty" json:"target_mib,omitempty"`
}

// Sampling holds the defaults a server applies to requests that set none.
type Sampling struct {
	Temperature   *float64 `yaml:"temperature,omitempty" json:"temperature,omitempty"`
	TopK          *int     `yaml:"top_k,omitempty" json:"top_k,omitempty"`
	TopP          *float64 `yaml:"top_p,omitempty" json:"top_p,omitempty"`
	MinP          *float64 `yaml:"min_p,omitempty" json:"min_p,omitempty"`
	RepeatPenalty *float64 `yaml:"repeat_penalty,omitempty" json:"repeat_penalty,omitempty"`
}

// Default host and slots when a config leaves them out.
const (
	DefaultHost  = "127.0.0.1"
	DefaultSlots = 1
)

// Parse decodes a config, refusing unknown keys (a misspelt key would
// otherwise be silently ignored) and filling defaults.
func Parse(data []byte) (Config, error) {
	var c Config
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil && !errors.Is(err, io.EOF) {
		return Config{}, fmt.Errorf("parse config: %w", err)
	}
	if c.Host == "" {
		c.Host = DefaultHost
	}
	if c.Slots == 0 {
		c.Slots = DefaultSlots
	}
	return c, nil
}

// Load reads and parses the config file at path.
func Load(path string) (Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("read config: %w", err)
	}
	c, err := Parse(b)
	if err != nil {
		return Config{}, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// Marshal is the config as YAML, as Store.Write writes it.
func (c Config) Marshal() ([]byte, error) {
	b, err := yaml.Marshal(c)
	if err != nil {
		return nil, fmt.Errorf("encode config: %w", err)
	}
	return b, nil
}
