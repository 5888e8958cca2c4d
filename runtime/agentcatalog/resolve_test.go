package agentcatalog_test

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/troupehq/troupe/runtime/agentcatalog"
	"github.com/troupehq/troupe/testkit"
)

// extends: a command replaces the base's distribution; a packageSpec pin
// keys its own install directory; a derived agent that only layers env
// shares its base's install; cycles and unknown bases leave the entry out.
func TestExtendsAndOverrides(t *testing.T) {
	docs := t.TempDir()
	url := registryDoc(t, docs, "1",
		map[string]any{"id": "claude-acp", "name": "Claude", "version": "0.5.0",
			"distribution": map[string]any{"npx": map[string]any{"package": "@zed/claude-acp@0.5.0", "env": map[string]string{"A": "1"}}}},
		map[string]any{"id": "opencode", "name": "OpenCode", "version": "1.0.0",
			"distribution": map[string]any{"npx": map[string]any{"package": "opencode-ai", "args": []string{"acp"}}}},
	)
	h := home(t, map[string]any{
		"registry": map[string]any{"url": url},
		"agents": map[string]any{
			"claude-work": map[string]any{"extends": "claude", "env": map[string]string{"B": "2"}},
			"claude-dev":  map[string]any{"extends": "claude-acp", "command": "/opt/dev/claude", "args": []string{"--dev"}},
			"loop-a":      map[string]any{"extends": "loop-b"},
			"loop-b":      map[string]any{"extends": "loop-a"},
			"orphan":      map[string]any{"extends": "nothing-like-it"},
		},
		"agentOverrides": map[string]any{"opencode": map[string]any{"packageSpec": "opencode-ai@0.5.12"}},
	})
	c, err := agentcatalog.Open(context.Background(), h, agentcatalog.Options{Log: slog.New(slog.DiscardHandler)})
	testkit.NoError(t, err)

	dev, err := c.Lookup("claude-dev")
	testkit.NoError(t, err)
	if dev.Launch.Command != "/opt/dev/claude" || !slices.Equal(dev.Launch.Args, []string{"--dev"}) || dev.Installed != "yes" ||
		!slices.Equal(dev.Distributions, []string{"exec"}) || !slices.Equal(dev.ExtendsChain, []string{"claude-dev", "claude-acp"}) {
		t.Fatalf("claude-dev = %+v", dev)
	}
	work, err := c.Lookup("claude-work")
	if !errors.Is(err, agentcatalog.ErrNotInstalled) || work.Name != "Claude" || !slices.Equal(work.Distributions, []string{"npx"}) {
		t.Fatalf("claude-work = %+v, %v", work, err)
	}
	if _, err := c.Lookup("loop-a"); err == nil || !strings.Contains(err.Error(), "cycle") {
		t.Fatalf("loop: %v", err)
	}
	if _, err := c.Lookup("orphan"); !errors.Is(err, agentcatalog.ErrUnknown) {
		t.Fatalf("orphan: %v", err)
	}
	if got := ids(c.List()); !slices.Equal(got, []string{"claude-acp", "claude-dev", "claude-work", "opencode"}) {
		t.Fatalf("list = %v", got)
	}
	oc, err := c.Lookup("opencode")
	if !errors.Is(err, agentcatalog.ErrNotInstalled) || oc.Version != "pin-0.5.12" {
		t.Fatalf("opencode = %+v, %v", oc, err)
	}

	// claude-work shares claude-acp's install: a bin there starts both,
	// with claude-work's env layered on the base's.
	bin := filepath.Join(h, "agents", "claude-acp", "0.5.0", "node_modules", ".bin", "claude-acp")
	testkit.NoError(t, mkdirWrite(bin))
	work, err = c.Lookup("claude-work")
	testkit.NoError(t, err)
	if work.Launch.Command != bin || work.Launch.Env["A"] != "1" || work.Launch.Env["B"] != "2" {
		t.Fatalf("claude-work installed = %+v", work)
	}
	base, err := c.Lookup("claude-acp")
	testkit.NoError(t, err)
	if base.Launch.Env["B"] != "" {
		t.Fatalf("the derived env leaked into the base: %+v", base)
	}
	// The pinned opencode is looked for under its pin, not "1.0.0".
	// Its bin is not the package's name: package.json says which.
	dir := filepath.Join(h, "agents", "opencode", "pin-0.5.12", "node_modules")
	pinned := filepath.Join(dir, ".bin", "opencode")
	testkit.NoError(t, mkdirWrite(pinned))
	testkit.NoError(t, mkdirWrite(filepath.Join(dir, "opencode-ai", "package.json")))
	writeFile(t, filepath.Join(dir, "opencode-ai"), "package.json", []byte(`{"bin": {"opencode": "bin/opencode"}}`))
	oc, err = c.Lookup("opencode")
	testkit.NoError(t, err)
	if oc.Launch.Command != pinned || !slices.Equal(oc.Launch.Args, []string{"acp"}) {
		t.Fatalf("opencode installed = %+v", oc)
	}
}
