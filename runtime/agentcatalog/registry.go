package agentcatalog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"time"
)

// RegistryCacheFile is the cached registry document in the home, in
// Hydra's shape ({"fetchedAt": ms, "data": document}), so a home both
// daemons use shares it.
const RegistryCacheFile = "registry.json"

// maxRegistryBytes bounds a registry document.
const maxRegistryBytes = 16 << 20

// document is the ACP registry document: {version, agents[]}. Only the
// fields the catalogue uses are decoded; the raw bytes are what is cached
// and served, so nothing the document says is lost.
type document struct {
	Version string          `json:"version"`
	Agents  []registryAgent `json:"agents"`
}

// registryAgent is one agent of the document. Its distribution has no
// exec kind: only the home's own configuration names a command to run.
type registryAgent struct {
	ID           string          `json:"id"`
	Name         string          `json:"name"`
	Version      string          `json:"version"`
	Description  string          `json:"description"`
	Distribution distribution    `json:"distribution"`
	Onboarding   json.RawMessage `json:"onboarding,omitempty"`
}

type distribution struct {
	Npx    *npxDist                 `json:"npx,omitempty"`
	Binary map[string]*binaryTarget `json:"binary,omitempty"`
	Uvx    *uvxDist                 `json:"uvx,omitempty"`
}

type npxDist struct {
	Package string            `json:"package"`
	Bin     string            `json:"bin,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
}

type uvxDist struct {
	Package string            `json:"package"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
}

// binaryTarget is one platform's archive. SHA256 is troupe's addition to
// the document (the hex digest of the archive); without it, or an
// agentOverrides pin, the archive is not installed.
type binaryTarget struct {
	Archive string            `json:"archive,omitempty"`
	Cmd     string            `json:"cmd,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	SHA256  string            `json:"sha256,omitempty"`
}

// cachedRegistry is a document with when it was fetched.
type cachedRegistry struct {
	fetchedAt time.Time
	raw       json.RawMessage
	doc       document
}

// parseDocument checks raw is a registry document.
func parseDocument(raw []byte) (document, error) {
	var d document
	if err := json.Unmarshal(raw, &d); err != nil {
		return d, fmt.Errorf("registry document: %w", err)
	}
	if d.Version == "" || d.Agents == nil {
		return d, errors.New("registry document: needs a version and an agents list")
	}
	return d, nil
}

// readCache reads the home's cached document; anything but a whole,
// valid cache is no cache (the next fetch replaces it).
func readCache(home string) *cachedRegistry {
	b, err := os.ReadFile(filepath.Join(home, RegistryCacheFile))
	if err != nil {
		return nil
	}
	var c struct {
		FetchedAt *int64          `json:"fetchedAt"`
		Data      json.RawMessage `json:"data"`
	}
	if json.Unmarshal(b, &c) != nil || c.FetchedAt == nil || len(c.Data) == 0 {
		return nil
	}
	d, err := parseDocument(c.Data)
	if err != nil {
		return nil
	}
	return &cachedRegistry{fetchedAt: time.UnixMilli(*c.FetchedAt), raw: c.Data, doc: d}
}

// writeCache replaces the home's cached document in one rename, so a
// reader never sees half of it.
func writeCache(home string, c *cachedRegistry) error {
	b, err := json.Marshal(map[string]any{"fetchedAt": c.fetchedAt.UnixMilli(), "data": c.raw})
	if err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(home, RegistryCacheFile), b)
}

func writeFileAtomic(path string, b []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(f.Name()) // a no-op once renamed
	if _, err := f.Write(b); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// fetchDocument reads the document at rawURL.
func fetchDocument(ctx context.Context, client *http.Client, rawURL string, now time.Time) (*cachedRegistry, error) {
	body, _, err := open(ctx, client, rawURL)
	if err != nil {
		return nil, fmt.Errorf("fetch registry: %w", err)
	}
	defer body.Close()
	raw, err := io.ReadAll(io.LimitReader(body, maxRegistryBytes+1))
	if err != nil {
		return nil, fmt.Errorf("fetch registry %s: %w", rawURL, err)
	}
	if len(raw) > maxRegistryBytes {
		return nil, fmt.Errorf("fetch registry %s: larger than %d bytes", rawURL, maxRegistryBytes)
	}
	d, err := parseDocument(raw)
	if err != nil {
		return nil, fmt.Errorf("fetch registry %s: %w", rawURL, err)
	}
	return &cachedRegistry{fetchedAt: now, raw: raw, doc: d}, nil
}

// checkURL accepts http, https and (when fileOK) file URLs.
func checkURL(raw string, fileOK bool) error {
	u, err := url.Parse(raw)
	if err != nil {
		return err
	}
	switch u.Scheme {
	case "http", "https":
		if u.Host == "" {
			return fmt.Errorf("%q names no host", raw)
		}
		return nil
	case "file":
		if !fileOK {
			return fmt.Errorf("%q: a file URL is not accepted here", raw)
		}
		if u.Host != "" && u.Host != "localhost" {
			return fmt.Errorf("%q: a file URL names this machine's files only", raw)
		}
		return nil
	default:
		return fmt.Errorf("%q: only http, https and file URLs", raw)
	}
}

// open reads rawURL (http, https or file), with its size when known (-1
// otherwise).
func open(ctx context.Context, client *http.Client, rawURL string) (io.ReadCloser, int64, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, 0, err
	}
	if u.Scheme == "file" {
		if u.Host != "" && u.Host != "localhost" {
			return nil, 0, fmt.Errorf("%q: a file URL names this machine's files only", rawURL)
		}
		f, err := os.Open(filepath.FromSlash(u.Path))
		if err != nil {
			return nil, 0, err
		}
		st, err := f.Stat()
		if err != nil || !st.Mode().IsRegular() {
			f.Close()
			return nil, 0, fmt.Errorf("%s: not a regular file", u.Path)
		}
		return f, st.Size(), nil
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, 0, fmt.Errorf("%q: only http, https and file URLs", rawURL)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, 0, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, 0, err
	}
	if resp.StatusCode/100 != 2 {
		resp.Body.Close()
		return nil, 0, fmt.Errorf("GET %s: HTTP %d", rawURL, resp.StatusCode)
	}
	return resp.Body, resp.ContentLength, nil
}
