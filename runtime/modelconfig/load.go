package modelconfig

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"regexp"
	"strings"
	"sync"

	"github.com/samber/lo"
	"gopkg.in/yaml.v3"
)

// file is the top level of models.yml.
type file struct {
	Default   Default      `yaml:"default"`
	Providers providerList `yaml:"providers"`
}

// providerList decodes the providers: mapping keeping its key order, which a
// Go map would lose; the order is the order models are listed and cycled.
type providerList []Provider

// UnmarshalYAML uses the older callback form on purpose: the callback keeps
// the decoder's KnownFields setting, while yaml.Node.Decode would drop it
// and let typos inside providers through.
func (l *providerList) UnmarshalYAML(unmarshal func(any) error) error {
	var node nodeCapture
	if err := unmarshal(&node); err != nil {
		return err
	}
	byName := map[string]Provider{}
	if err := unmarshal(&byName); err != nil {
		return err
	}
	keys := node.Content
	for i := 0; i+1 < len(keys); i += 2 {
		name := keys[i].Value
		p, ok := byName[name]
		if !ok {
			continue
		}
		p.Name = name
		*l = append(*l, p)
	}
	return nil
}

// nodeCapture keeps the raw node; the callback cannot decode into a
// yaml.Node directly.
type nodeCapture struct{ *yaml.Node }

func (c *nodeCapture) UnmarshalYAML(node *yaml.Node) error {
	c.Node = node
	return nil
}

// Load reads the models file at path. A missing file is an empty Config, so
// troupe runs on environment variables alone.
func Load(path string) (Config, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Config{Path: path}, nil
	}
	if err != nil {
		return Config{}, fmt.Errorf("read models config: %w", err)
	}
	return Parse(data, path)
}

// Parse decodes and checks models.yml content; path is only used in errors.
func Parse(data []byte, path string) (Config, error) {
	var f file
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	err := dec.Decode(&f)
	if err != nil && !errors.Is(err, io.EOF) {
		return Config{}, fmt.Errorf("%s: %s", path, decodeMessage(err))
	}
	cfg := Config{Path: path, Default: f.Default, Providers: f.Providers}
	if err := cfg.check(); err != nil {
		return Config{}, fmt.Errorf("%s: %w", path, err)
	}
	return cfg.withDefaults(), nil
}

// unknownField matches yaml.v3's strict-mode message, which names Go types
// the user never sees.
var unknownField = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`field (.+) not found in type \S+$`) })

// decodeMessage puts yaml.v3's multi-line list of type errors on one line,
// in the file's terms rather than Go's.
func decodeMessage(err error) string {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return strings.TrimPrefix(err.Error(), "yaml: ")
	}
	msgs := lo.Map(te.Errors, func(m string, _ int) string { return unknownField().ReplaceAllString(m, "unknown key ${1}") })
	return strings.Join(msgs, "; ")
}

func (c Config) withDefaults() Config {
	var providers []Provider
	for _, p := range c.Providers {
		var models []Model
		for _, m := range p.Models {
			models = append(models, m.withDefaults())
		}
		p.Models = models
		providers = append(providers, p)
	}
	c.Providers = providers
	c.Default = c.expandDefault()
	return c
}

// expandDefault splits a "provider/model" default.model when
// default.provider is left out.
func (c Config) expandDefault() Default {
	d := c.Default
	if d.Provider != "" || d.Model == "" {
		return d
	}
	prefix, rest, ok := strings.Cut(d.Model, "/")
	if !ok || !c.known(prefix) {
		return d
	}
	return Default{Provider: prefix, Model: rest}
}

// lineError reports err the way yaml.v3 reports its own type errors, so
// all decode problems read alike and are collected together.
func lineError(node *yaml.Node, err error) error {
	return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: %v", node.Line, err)}}
}
