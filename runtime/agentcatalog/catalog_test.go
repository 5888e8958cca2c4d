package agentcatalog_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/troupehq/troupe/runtime/agentcatalog"
	"github.com/troupehq/troupe/testkit"
)

// Hydra's config.json agents map is read unchanged: the command defaults to
// the id, args and env are kept, and an unknown id says so.
func TestLoadReadsHydrasAgentsMap(t *testing.T) {
	home := t.TempDir()
	testkit.NoError(t, os.WriteFile(filepath.Join(home, "config.json"), []byte(`{
	  "daemon": {"port": 1},
	  "agents": {
	    "opencode": {"args": ["acp"]},
	    "mine": {"name": "Mine", "command": "/opt/mine/bin/agent", "args": ["--acp"], "env": {"K": "v"}}
	  }}`), 0o600))
	c, err := agentcatalog.Load(home)
	testkit.NoError(t, err)
	oc, err := c.Lookup("opencode")
	testkit.NoError(t, err)
	if oc.Launch.Command != "opencode" || len(oc.Launch.Args) != 1 || oc.Launch.Args[0] != "acp" || oc.Name != "opencode" {
		t.Fatalf("opencode = %+v", oc)
	}
	m, err := c.Lookup("mine")
	testkit.NoError(t, err)
	if m.Launch.Command != "/opt/mine/bin/agent" || m.Launch.Env["K"] != "v" || m.Name != "Mine" || m.Source != "config" {
		t.Fatalf("mine = %+v", m)
	}
	if _, err := c.Lookup("nope"); !errors.Is(err, agentcatalog.ErrUnknown) {
		t.Fatalf("unknown agent: %v", err)
	}
	if ids := c.List(); len(ids) != 2 || ids[0].ID != "mine" || ids[1].ID != "opencode" {
		t.Fatalf("list = %+v", ids)
	}
}

func TestLoadWithoutConfigHasNoAgents(t *testing.T) {
	c, err := agentcatalog.Load(t.TempDir())
	testkit.NoError(t, err)
	if len(c.List()) != 0 {
		t.Fatalf("agents: %+v", c.List())
	}
}
