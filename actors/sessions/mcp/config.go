package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// Transports a ServerConfig may name in Type.
const (
	TransportStdio = "stdio" // also the meaning of an empty Type
	TransportHTTP  = "http"  // Streamable HTTP
	TransportSSE   = "sse"   // the 2024-11-05 HTTP+SSE transport
)

// ServerConfig is one entry of ACP's mcpServers, decoded as a client sends
// it: stdio {name, command, args, env:[{name,value}]} (no type, or
// "stdio"), or {type:"http"|"sse", name, url, headers:[{name,value}]}.
type ServerConfig struct {
	Type    string        `json:"type,omitempty"`
	Name    string        `json:"name"`
	Command string        `json:"command,omitempty"`
	Args    []string      `json:"args,omitempty"`
	Env     []EnvVariable `json:"env,omitempty"`
	URL     string        `json:"url,omitempty"`
	Headers []HTTPHeader  `json:"headers,omitempty"`
}

// EnvVariable is set in a stdio server's environment, on top of the
// runtime's own.
type EnvVariable struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// HTTPHeader is sent with every request to an http or sse server.
type HTTPHeader struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Transport is the configured transport, TransportStdio when Type is empty.
func (c ServerConfig) Transport() string {
	if c.Type == "" {
		return TransportStdio
	}
	return c.Type
}

// Validate reports the first problem that would stop the server from
// being reached, naming the server.
func (c ServerConfig) Validate() error {
	if strings.TrimSpace(c.Name) == "" {
		return errors.New("mcp server: empty name")
	}
	if err := c.validateTransport(); err != nil {
		return fmt.Errorf("mcp server %q: %w", c.Name, err)
	}
	return nil
}

func (c ServerConfig) validateTransport() error {
	switch c.Transport() {
	case TransportStdio:
		if c.Command == "" {
			return errors.New("stdio transport needs a command")
		}
		for _, e := range c.Env {
			if e.Name == "" || strings.ContainsAny(e.Name, "=\x00") {
				return fmt.Errorf("invalid environment variable name %q", e.Name)
			}
		}
		return nil
	case TransportHTTP, TransportSSE:
		u, err := url.Parse(c.URL)
		if err != nil {
			return fmt.Errorf("invalid url: %w", err)
		}
		if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("url %q is not an http or https URL", c.URL)
		}
		for _, h := range c.Headers {
			if !validHeaderName(h.Name) {
				return fmt.Errorf("invalid header name %q", h.Name)
			}
		}
		return nil
	default:
		return fmt.Errorf("unsupported transport %q (want stdio, http or sse)", c.Type)
	}
}

// validHeaderName accepts RFC 9110 token characters, so a bad name fails
// here rather than on the first request.
func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r > 0x7e || r <= ' ' || strings.ContainsRune("\"(),/:;<=>?@[\\]{}", r) {
			return false
		}
	}
	return true
}

// ParseServers decodes and validates a session's mcpServers. null or an
// absent value means none. Two servers whose names map to the same tool
// name prefix (see ToolName) are refused, since their tools would collide.
func ParseServers(raw json.RawMessage) ([]ServerConfig, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, nil
	}
	var servers []ServerConfig
	if err := json.Unmarshal(raw, &servers); err != nil {
		return nil, fmt.Errorf("parse mcpServers: %w", err)
	}
	seen := map[string]string{}
	for i, s := range servers {
		if err := s.Validate(); err != nil {
			return nil, fmt.Errorf("parse mcpServers: entry %d: %w", i, err)
		}
		key := strings.ToLower(serverPrefix(s.Name))
		if other, dup := seen[key]; dup {
			return nil, fmt.Errorf("parse mcpServers: entry %d: server names %q and %q give the same tool prefix %q", i, other, s.Name, serverPrefix(s.Name))
		}
		seen[key] = s.Name
	}
	return servers, nil
}
