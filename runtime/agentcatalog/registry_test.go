package agentcatalog_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/troupehq/troupe/runtime/agentcatalog"
	"github.com/troupehq/troupe/testkit"
)

// config.yml's agents section has config.json's fields, and wins for an
// id both name.
func TestConfigYMLAgents(t *testing.T) {
	h := home(t, map[string]any{"agents": map[string]any{"a": map[string]any{"command": "from-json"}, "b": map[string]any{},
		"../up": map[string]any{"command": "x"}}})
	writeFile(t, h, "config.yml", []byte("agents:\n  a:\n    command: from-yml\n    args: [acp]\n    env: {K: v}\n  c:\n    name: See\n"))
	c, err := agentcatalog.Load(h)
	testkit.NoError(t, err)
	a, err := c.Lookup("a")
	testkit.NoError(t, err)
	if a.Launch.Command != "from-yml" || !slices.Equal(a.Launch.Args, []string{"acp"}) || a.Launch.Env["K"] != "v" {
		t.Fatalf("a = %+v", a)
	}
	// An id that is no single path segment is left out.
	if ids := ids(c.List()); !slices.Equal(ids, []string{"a", "b", "c"}) {
		t.Fatalf("ids = %v", ids)
	}

}

// Without registry.url nothing is read from a registry, not even a cached
// copy another daemon left in the home.
func TestNoRegistryUnlessConfigured(t *testing.T) {
	h := home(t, map[string]any{"defaultAgent": "mine", "agents": map[string]any{"mine": map[string]any{}}})
	writeFile(t, h, agentcatalog.RegistryCacheFile, []byte(`{"fetchedAt": 1, "data": {"version": "1", "agents": [{"id": "x", "name": "X", "distribution": {"uvx": {"package": "x"}}}]}}`))
	c, err := agentcatalog.Load(h)
	testkit.NoError(t, err)
	if _, err := c.Registry(); !errors.Is(err, agentcatalog.ErrNoRegistry) {
		t.Fatalf("registry: %v", err)
	}
	if _, _, err := c.Refresh(context.Background()); !errors.Is(err, agentcatalog.ErrNoRegistry) {
		t.Fatalf("refresh: %v", err)
	}
	if _, err := c.Lookup("x"); !errors.Is(err, agentcatalog.ErrUnknown) {
		t.Fatalf("lookup x: %v", err)
	}
	l := c.Listing()
	if l.Version != "local-only" || l.FetchedAt != nil || len(l.Agents) != 1 || l.Agents[0].Source != "local" || l.Agents[0].Installed != "yes" {
		t.Fatalf("listing = %+v", l)
	}
	if c.DefaultAgent() != "mine" {
		t.Fatalf("default agent %q", c.DefaultAgent())
	}
}

// A file:// registry is fetched and cached in Hydra's shape; its agents
// are listed with their install state; local agents shadow it; Lookup
// resolves Hydra's shorthands; extends layers args and env on a base.
func TestFileRegistry(t *testing.T) {
	docs := t.TempDir()
	url := registryDoc(t, docs, "2026.1",
		map[string]any{"id": "npm-acp", "name": "Npm", "version": "1.2.3", "description": "an npx agent",
			"distribution": map[string]any{"npx": map[string]any{"package": "@scope/npm-thing@1.2.3", "args": []string{"--acp"}}},
			"onboarding":   map[string]any{"command": "npm-thing login"}},
		map[string]any{"id": "py-agent", "name": "Py", "version": "0.1",
			"distribution": map[string]any{"uvx": map[string]any{"package": "py-agent==0.1", "args": []string{"acp"}, "env": map[string]string{"A": "1"}}}},
		map[string]any{"id": "shadowed", "name": "Registry's", "distribution": map[string]any{"uvx": map[string]any{"package": "s"}}},
		map[string]any{"id": "../evil", "name": "Evil", "distribution": map[string]any{"uvx": map[string]any{"package": "e"}}},
	)
	h := home(t, map[string]any{"registry": map[string]any{"url": url},
		"agents": map[string]any{
			"shadowed": map[string]any{"command": "/bin/own"},
			"py-dev":   map[string]any{"extends": "py", "args": []string{"acp", "--dev"}, "env": map[string]string{"B": "2"}},
		}})
	c, err := agentcatalog.Load(h)
	testkit.NoError(t, err)
	testkit.NoError(t, c.RegistryError())

	var cache struct {
		FetchedAt int64           `json:"fetchedAt"`
		Data      json.RawMessage `json:"data"`
	}
	b, err := os.ReadFile(filepath.Join(h, agentcatalog.RegistryCacheFile))
	testkit.NoError(t, err)
	testkit.NoError(t, json.Unmarshal(b, &cache))
	if cache.FetchedAt == 0 || len(cache.Data) == 0 {
		t.Fatalf("cache = %s", b)
	}
	raw, err := c.Registry()
	testkit.NoError(t, err)
	if !json.Valid(raw) || !slices.Contains(ids(c.List()), "npm-acp") {
		t.Fatalf("registry %s", raw)
	}

	l := c.Listing()
	if l.Version != "2026.1" || l.FetchedAt == nil {
		t.Fatalf("listing head = %+v", l)
	}
	got := map[string]agentcatalog.Entry{}
	for _, e := range l.Agents {
		got[e.ID] = e
	}
	if len(got) != 4 { // the unsafe id is left out
		t.Fatalf("agents = %+v", l.Agents)
	}
	if e := got["npm-acp"]; e.Installed != "no" || e.Source != "registry" || !slices.Equal(e.Distributions, []string{"npx"}) || string(e.Onboarding) == "" {
		t.Fatalf("npm-acp = %+v", e)
	}
	if e := got["py-agent"]; e.Installed != "lazy" {
		t.Fatalf("py-agent = %+v", e)
	}
	if e := got["shadowed"]; e.Source != "local" || e.Name != "shadowed" {
		t.Fatalf("shadowed = %+v", e)
	}
	if e := got["py-dev"]; e.Source != "local" || !slices.Equal(e.ExtendsChain, []string{"py-dev", "py-agent"}) {
		t.Fatalf("py-dev = %+v", e)
	}

	// Not installed: a distinct error, so the daemon answers -32005.
	if _, err := c.Lookup("npm-acp"); !errors.Is(err, agentcatalog.ErrNotInstalled) {
		t.Fatalf("npm-acp: %v", err)
	}
	// By npm package name, and by the implied -acp suffix.
	for _, id := range []string{"npm-thing", "npm"} {
		if a, err := c.Lookup(id); a.ID != "npm-acp" || !errors.Is(err, agentcatalog.ErrNotInstalled) {
			t.Fatalf("%s: %+v %v", id, a, err)
		}
	}
	py, err := c.Lookup("py") // unique prefix
	testkit.NoError(t, err)
	if py.Launch.Command != "uvx" || !slices.Equal(py.Launch.Args, []string{"py-agent==0.1", "acp"}) || py.Launch.Env["A"] != "1" {
		t.Fatalf("py = %+v", py)
	}
	// What Lookup answers is the caller's to change, not the document's.
	py.Launch.Env["A"] = "changed"
	if again, _ := c.Lookup("py-agent"); again.Launch.Env["A"] != "1" {
		t.Fatalf("the catalogue's launch changed: %+v", again)
	}
	dev, err := c.Lookup("py-dev")
	testkit.NoError(t, err)
	if !slices.Equal(dev.Launch.Args, []string{"py-agent==0.1", "acp", "--dev"}) || dev.Launch.Env["A"] != "1" || dev.Launch.Env["B"] != "2" {
		t.Fatalf("py-dev = %+v", dev)
	}
	if _, err := c.Lookup("../evil"); !errors.Is(err, agentcatalog.ErrUnknown) {
		t.Fatalf("evil: %v", err)
	}
}

// The cache serves while fresh and always when pinned; a stale one is
// fetched again, and a failed fetch falls back to it, saying why.
func TestRegistryCacheTTLAndPin(t *testing.T) {
	docs := t.TempDir()
	url := registryDoc(t, docs, "v1")
	h := home(t, map[string]any{"registry": map[string]any{"url": url, "ttlHours": 1}})
	now := time.Now()
	clock := func() time.Time { return now }
	c, err := agentcatalog.Open(context.Background(), h, agentcatalog.Options{Now: clock})
	testkit.NoError(t, err)
	if c.Listing().Version != "v1" {
		t.Fatal("first load did not fetch")
	}
	registryDoc(t, docs, "v2")
	c, err = agentcatalog.Open(context.Background(), h, agentcatalog.Options{Now: clock})
	testkit.NoError(t, err)
	if v := c.Listing().Version; v != "v1" {
		t.Fatalf("fresh cache: version %s", v)
	}
	later := func() time.Time { return now.Add(2 * time.Hour) }
	c, err = agentcatalog.Open(context.Background(), h, agentcatalog.Options{Now: later})
	testkit.NoError(t, err)
	if v := c.Listing().Version; v != "v2" {
		t.Fatalf("stale cache: version %s", v)
	}

	// Pinned: the cache serves however old; refresh still fetches.
	registryDoc(t, docs, "v3")
	b, _ := json.Marshal(map[string]any{"registry": map[string]any{"url": url, "ttlHours": 1, "pinned": true}})
	writeFile(t, h, "config.json", b)
	much := func() time.Time { return now.Add(1000 * time.Hour) }
	c, err = agentcatalog.Open(context.Background(), h, agentcatalog.Options{Now: much})
	testkit.NoError(t, err)
	if v := c.Listing().Version; v != "v2" {
		t.Fatalf("pinned: version %s", v)
	}
	v, n, err := c.Refresh(context.Background())
	testkit.NoError(t, err)
	if v != "v3" || n != 0 || c.Listing().Version != "v3" {
		t.Fatalf("refresh: %s %d", v, n)
	}

	// Unreadable: the stale cache serves and RegistryError says why.
	testkit.NoError(t, os.Remove(filepath.Join(docs, "registry-doc.json")))
	b, _ = json.Marshal(map[string]any{"registry": map[string]any{"url": url, "ttlHours": 1}})
	writeFile(t, h, "config.json", b)
	evenLater := func() time.Time { return now.Add(2000 * time.Hour) }
	c, err = agentcatalog.Open(context.Background(), h, agentcatalog.Options{Now: evenLater})
	testkit.NoError(t, err)
	if c.RegistryError() == nil || c.Listing().Version != "v3" {
		t.Fatalf("fallback: %v %s", c.RegistryError(), c.Listing().Version)
	}
}

func TestBadRegistryConfigRefused(t *testing.T) {
	for _, u := range []string{"ftp://x/y", "https://", "file://elsewhere/doc.json"} {
		h := home(t, map[string]any{"registry": map[string]any{"url": u}})
		if _, err := agentcatalog.Load(h); err == nil {
			t.Fatalf("%s accepted", u)
		}
	}
}

func ids(as []agentcatalog.Agent) []string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = a.ID
	}
	return out
}
