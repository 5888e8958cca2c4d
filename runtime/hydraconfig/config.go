package hydraconfig

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
)

// File is the config's name in the home.
const File = "config.json"

// Hydra's defaults for the daemon's address.
const (
	DefaultHost = "127.0.0.1"
	DefaultPort = 55514
)

// Config is the part of config.json troupe reads.
type Config struct {
	Daemon Daemon `json:"daemon"`
	// Present says the home has a config.json.
	Present bool `json:"-"`
}

// Daemon is config.json's "daemon" section, as far as the digest and the
// listen address go.
type Daemon struct {
	Host       string  `json:"host"`
	Port       int     `json:"port"`
	PublicHost *string `json:"publicHost,omitempty"`
	TLS        *TLS    `json:"tls,omitempty"`
}

// TLS is daemon.tls.
type TLS struct {
	Cert string `json:"cert"`
	Key  string `json:"key"`
}

// Read reads home's config.json; a home without one has Hydra's defaults.
func Read(home string) (Config, error) {
	c := Config{Daemon: Daemon{Host: DefaultHost, Port: DefaultPort}}
	b, err := os.ReadFile(filepath.Join(home, File))
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return c, fmt.Errorf("read hydra config: %w", err)
	}
	var raw struct {
		Daemon *struct {
			Host       *string `json:"host"`
			Port       *int    `json:"port"`
			PublicHost *string `json:"publicHost"`
			TLS        *TLS    `json:"tls"`
		} `json:"daemon"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return c, fmt.Errorf("read hydra config %s: %w", filepath.Join(home, File), err)
	}
	c.Present = true
	if d := raw.Daemon; d != nil {
		if d.Host != nil {
			c.Daemon.Host = *d.Host
		}
		if d.Port != nil {
			if *d.Port <= 0 || *d.Port > 65535 {
				return c, fmt.Errorf("hydra config %s: daemon.port %d is not a port", filepath.Join(home, File), *d.Port)
			}
			c.Daemon.Port = *d.Port
		}
		c.Daemon.PublicHost, c.Daemon.TLS = d.PublicHost, d.TLS
	}
	return c, nil
}

// Listen is the address config.json has the daemon bind.
func (c Config) Listen() string {
	return net.JoinHostPort(c.Daemon.Host, strconv.Itoa(c.Daemon.Port))
}

// Digest is the configDigest a Hydra client computes over the same file:
// the first 16 hex digits of the SHA-256 of the restart-tier settings as
// JSON with sorted keys.
func (c Config) Digest() string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // JSON.stringify leaves <, > and & alone
	// Struct fields are written in declaration order; the digest wants
	// them sorted, as Hydra's canonical form has them.
	d := map[string]any{"host": c.Daemon.Host, "port": c.Daemon.Port}
	if c.Daemon.PublicHost != nil {
		d["publicHost"] = *c.Daemon.PublicHost
	}
	if c.Daemon.TLS != nil {
		d["tls"] = map[string]any{"cert": c.Daemon.TLS.Cert, "key": c.Daemon.TLS.Key}
	}
	if err := enc.Encode(map[string]any{"daemon": d}); err != nil {
		panic(err) // strings and ints always encode
	}
	sum := sha256.Sum256(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
	return hex.EncodeToString(sum[:])[:16]
}
