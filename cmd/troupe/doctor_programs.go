package main

import (
	"cmp"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/troupehq/troupe/actors/plugins"
	"github.com/troupehq/troupe/runtime/agentcatalog"
	"github.com/troupehq/troupe/runtime/hydraconfig"
	"github.com/troupehq/troupe/runtime/llamaconfig"
)

// checkLlama loads each llama config and looks for the llama-server it
// runs: missing is a problem when a config needs it, a note otherwise.
func (d *doctor) checkLlama() {
	store := llamaconfig.Store{Dir: filepath.Join(d.home, "configs")}
	entries, err := store.List()
	if err != nil {
		d.r.problem(fmt.Sprintf("the llama configs cannot be listed: %v", err), "chmod u+rx "+store.Dir)
		return
	}
	servers := map[string][]string{} // server program -> the configs running it
	for _, e := range entries {
		cfg, err := store.Read(e.Name)
		if err != nil {
			d.r.problem(fmt.Sprintf("llama config %s does not load: %v", e.Name, err), "correct "+e.Path+", or remove it")
			continue
		}
		if ps := cfg.Validate(); len(ps) > 0 {
			var msgs []string
			for _, p := range ps {
				msgs = append(msgs, p.Field+": "+p.Message)
			}
			d.r.problem(fmt.Sprintf("llama config %s: %s", e.Name, strings.Join(msgs, "; ")), "correct "+e.Path)
		} else {
			d.r.ok("llama config " + e.Name + " is valid")
		}
		prog := cmp.Or(cfg.ServerPath, "llama-server")
		servers[prog] = append(servers[prog], e.Name)
	}
	if _, ok := servers["llama-server"]; !ok {
		servers["llama-server"] = nil // looked for even with no config using it
	}
	for prog, configs := range servers {
		path, err := exec.LookPath(prog)
		switch {
		case err == nil:
			d.r.ok(fmt.Sprintf("llama-server: %s", path))
		case len(configs) > 0:
			d.r.problem(fmt.Sprintf("llama-server %q is not found, and llama config(s) %s run it: %v", prog, strings.Join(configs, ", "), err),
				"install llama.cpp's llama-server on $PATH, or set server_path in the config(s) to where it is")
		default:
			d.r.warn("llama-server is not on $PATH (needed only for --provider llama)", "install llama.cpp's llama-server to run local models")
		}
	}
}

// checkAgents reads config.json (Hydra's settings, which its clients and
// the daemon share) and looks for the program of each agent the home
// configures.
func (d *doctor) checkAgents(ctx context.Context) {
	if _, err := hydraconfig.Read(d.home); err != nil {
		d.r.problem(fmt.Sprintf("config.json does not load: %v", err),
			"correct it: the daemon ignores it, and Hydra's clients refuse a daemon whose config they cannot match")
	}
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	c, err := agentcatalog.Open(ctx, d.home, agentcatalog.Options{})
	if err != nil {
		d.r.problem(fmt.Sprintf("the agent configuration does not load: %v", err), "correct the \"agents\" of config.json or config.yml")
		return
	}
	for _, a := range c.List() {
		if a.Source != "config" || a.Launch.Command == "" {
			continue
		}
		if path, err := exec.LookPath(a.Launch.Command); err != nil {
			d.r.problem(fmt.Sprintf("agent %s: its command %q is not found: %v", a.ID, a.Launch.Command, err),
				"install it, or correct agents."+a.ID+".command")
		} else {
			d.r.ok(fmt.Sprintf("agent %s: %s", a.ID, path))
		}
	}
}

// checkExtensions loads config.yml's extensions and transformers: an
// entry the daemon would skip (a bad name) or whose program is not found
// is a problem.
func (d *doctor) checkExtensions() {
	cfg, err := plugins.LoadConfig(d.home)
	if err != nil {
		d.r.problem(fmt.Sprintf("config.yml does not load: %v", err), "correct it")
		return
	}
	for _, why := range cfg.Skipped {
		d.r.problem(why, "correct the entry, or remove it")
	}
	check := func(kind string, specs []plugins.Spec) {
		for _, s := range specs {
			if s.Enabled != nil && !*s.Enabled {
				continue
			}
			if path, err := exec.LookPath(s.Command[0]); err != nil {
				d.r.problem(fmt.Sprintf("%s %s: its command %q is not found: %v", kind, s.Name, s.Command[0], err),
					"install it, or correct its command in config.yml (or set `enabled: false`)")
			} else {
				d.r.ok(fmt.Sprintf("%s %s: %s", kind, s.Name, path))
			}
		}
	}
	check(plugins.KindExtension, cfg.Extensions)
	check(plugins.KindTransformer, cfg.Transformers)
}
