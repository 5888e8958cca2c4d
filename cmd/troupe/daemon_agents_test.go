package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/troupehq/troupe/runtime/agentcatalog"
	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/acpclient"
)

// agentsHome is a home whose config.json names a local agent (the
// default) and a file registry with a binary agent (a checked archive)
// and a uvx one; it answers the home and the registry document's path.
func agentsHome(t *testing.T) (home, doc string) {
	t.Helper()
	home, docs := t.TempDir(), t.TempDir()
	var b bytes.Buffer
	gz := gzip.NewWriter(&b)
	tw := tar.NewWriter(gz)
	script := "#!/bin/sh\necho bin-agent\n"
	testkit.NoError(t, tw.WriteHeader(&tar.Header{Name: "bin/agent", Mode: 0o755, Size: int64(len(script)), Typeflag: tar.TypeReg}))
	_, err := tw.Write([]byte(script))
	testkit.NoError(t, err)
	testkit.NoError(t, tw.Close())
	testkit.NoError(t, gz.Close())
	archive := filepath.Join(docs, "bin-agent.tar.gz")
	testkit.NoError(t, os.WriteFile(archive, b.Bytes(), 0o644))
	sum := sha256.Sum256(b.Bytes())
	doc = filepath.Join(docs, "registry.json")
	writeRegistry(t, doc, "2026.11", map[string]any{"id": "bin-agent", "name": "Bin", "version": "1.0.0",
		"distribution": map[string]any{"binary": map[string]any{agentcatalog.PlatformKey(): map[string]any{
			"archive": "file://" + archive, "cmd": "./bin/agent", "sha256": hex.EncodeToString(sum[:])}}}},
		map[string]any{"id": "py-acp", "name": "Py", "version": "0.1", "distribution": map[string]any{"uvx": map[string]any{"package": "py-acp"}}},
		map[string]any{"id": "bad-sum", "name": "Bad", "version": "1.0.0",
			"distribution": map[string]any{"binary": map[string]any{agentcatalog.PlatformKey(): map[string]any{
				"archive": "file://" + archive, "cmd": "./bin/agent", "sha256": hex.EncodeToString(make([]byte, 32))}}}})
	cfg, err := json.Marshal(map[string]any{
		"defaultAgent": "mine",
		"registry":     map[string]any{"url": "file://" + doc},
		"agents":       map[string]any{"mine": map[string]any{"command": "/bin/cat", "description": "a local agent"}},
	})
	testkit.NoError(t, err)
	testkit.NoError(t, os.WriteFile(filepath.Join(home, "config.json"), cfg, 0o600))
	return home, doc
}

func writeRegistry(t *testing.T, path, version string, agents ...map[string]any) {
	t.Helper()
	b, err := json.Marshal(map[string]any{"version": version, "agents": agents})
	testkit.NoError(t, err)
	testkit.NoError(t, os.WriteFile(path, b, 0o644))
}

type agentList struct {
	Version   string
	FetchedAt *int64
	Agents    []struct {
		ID, Name, Version, Installed, Source string
		Distributions                        []string
	}
}

func (l agentList) state() map[string]string {
	out := map[string]string{}
	for _, a := range l.Agents {
		out[a.ID] = a.Installed + " " + a.Source
	}
	return out
}

// The catalogue through a real daemon: /v1/agents and
// hydra-acp/agents/list list troupe's agent and the configured and
// registry agents with their install state; an install streams
// install_progress to the ACP clients and changes the state; the
// registry is served and refreshed; /v1/config names config.json's
// defaultAgent.
func TestDaemonAgentCatalogue(t *testing.T) {
	home, doc := agentsHome(t)
	d := startDaemon(t, home, nil)

	var l agentList
	d.call(t, "GET", "/v1/agents", nil, http.StatusOK, &l)
	if l.Version != "2026.11" || l.FetchedAt == nil || len(l.Agents) != 5 || l.Agents[0].ID != "troupe" {
		t.Fatalf("agents = %+v", l)
	}
	want := map[string]string{"troupe": "yes ", "bin-agent": "no registry", "bad-sum": "no registry", "mine": "yes local", "py-acp": "lazy registry"}
	if got := l.state(); !maps.Equal(got, want) {
		t.Fatalf("states %v, want %v", got, want)
	}

	c := d.dialACP(t, "watcher")
	f := c.WaitAnswer(c.Call("hydra-acp/agents/list", map[string]any{}))
	var viaACP agentList
	testkit.NoError(t, json.Unmarshal(f.Result, &viaACP))
	if viaACP.Version != l.Version || !maps.Equal(viaACP.state(), want) {
		t.Fatalf("hydra-acp/agents/list = %s", f.Raw)
	}

	var cfg struct{ DefaultAgent string }
	d.call(t, "GET", "/v1/config", nil, http.StatusOK, &cfg)
	testkit.Equal(t, cfg.DefaultAgent, "mine")

	var reg struct {
		Version string
		Agents  []struct{ ID string }
	}
	d.call(t, "GET", "/v1/registry", nil, http.StatusOK, &reg)
	if reg.Version != "2026.11" || len(reg.Agents) != 3 {
		t.Fatalf("registry = %+v", reg)
	}

	var inst agentcatalog.Installed
	d.call(t, "POST", "/v1/agents/bin-agent/install", nil, http.StatusOK, &inst)
	if !inst.Installed || inst.Distribution != "binary" || inst.Command != filepath.Join(home, "agents", "bin-agent", "1.0.0", "bin", "agent") {
		t.Fatalf("install = %+v", inst)
	}
	var phases []string
	c.Until(func(f acpclient.Frame) bool {
		if f.Method != "hydra-acp/agents/install_progress" {
			return false
		}
		var p agentcatalog.Progress
		testkit.NoError(t, json.Unmarshal(f.Params, &p))
		if p.AgentID != "bin-agent" || p.Source != "binary" {
			t.Fatalf("progress %s", f.Raw)
		}
		phases = append(phases, p.Phase)
		return p.Phase == "installed"
	})
	if !slices.Equal(phases, []string{"download_start", "download_done", "extract", "installed"}) {
		t.Fatalf("phases %v", phases)
	}
	d.call(t, "GET", "/v1/agents", nil, http.StatusOK, &l)
	if l.state()["bin-agent"] != "yes registry" {
		t.Fatalf("after install: %v", l.state())
	}
	d.call(t, "POST", "/v1/agents/py-acp/install", nil, http.StatusOK, &inst)
	if inst.Installed || inst.Distribution != "uvx" || inst.Message == "" {
		t.Fatalf("uvx install = %+v", inst)
	}
	wantError(t, d.do(t, "POST", "/v1/agents/nope/install", nil), http.StatusNotFound)
	// An archive whose checksum is not the registry's is refused, and the
	// agent stays uninstalled.
	if msg := wantError(t, d.do(t, "POST", "/v1/agents/bad-sum/install", nil), http.StatusInternalServerError); !strings.Contains(msg, "checksum") {
		t.Fatalf("bad checksum: %q", msg)
	}
	d.call(t, "GET", "/v1/agents", nil, http.StatusOK, &l)
	if l.state()["bad-sum"] != "no registry" {
		t.Fatalf("after a refused install: %v", l.state())
	}

	writeRegistry(t, doc, "2026.12", map[string]any{"id": "only", "name": "Only", "distribution": map[string]any{"uvx": map[string]any{"package": "only"}}})
	var refreshed struct {
		Version    string
		AgentCount int
	}
	d.call(t, "POST", "/v1/registry/refresh", nil, http.StatusOK, &refreshed)
	if refreshed.Version != "2026.12" || refreshed.AgentCount != 1 {
		t.Fatalf("refresh = %+v", refreshed)
	}
	d.call(t, "GET", "/v1/agents", nil, http.StatusOK, &l)
	if l.Version != "2026.12" || !maps.Equal(l.state(), map[string]string{"troupe": "yes ", "mine": "yes local", "only": "lazy registry"}) {
		t.Fatalf("after refresh: %+v", l)
	}
}

// Without a registry configured nothing is fetched: the registry routes
// say so, troupe's own agent is the default and the only one listed.
func TestDaemonAgentCatalogueUnconfigured(t *testing.T) {
	d := startDaemon(t, t.TempDir(), nil)
	var l agentList
	d.call(t, "GET", "/v1/agents", nil, http.StatusOK, &l)
	if len(l.Agents) != 1 || l.Agents[0].ID != "troupe" {
		t.Fatalf("agents = %+v", l)
	}
	var cfg struct{ DefaultAgent string }
	d.call(t, "GET", "/v1/config", nil, http.StatusOK, &cfg)
	testkit.Equal(t, cfg.DefaultAgent, "troupe")
	wantError(t, d.do(t, "GET", "/v1/registry", nil), http.StatusNotFound)
	wantError(t, d.do(t, "POST", "/v1/registry/refresh", nil), http.StatusNotFound)
	wantError(t, d.do(t, "POST", "/v1/agents/anything/install", nil), http.StatusNotFound)
}
