package engine

import (
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/troupehq/troupe/runtime/modelconfig"
)

// Reload reads models.yml again: the runs that start after it, new
// sessions' defaults and the model lists resolve against the new file;
// a run under way keeps the model it started with. A file that does not
// load changes nothing: the error says why, and the old one stays. What
// it returns says what changed, for the log and the person who asked.
func (e *Engine) Reload() (string, error) {
	path := filepath.Join(e.opts.Home, modelconfig.FileName)
	cfg, err := modelconfig.Load(path)
	if err != nil {
		return "", fmt.Errorf("%s not reloaded (the daemon keeps the one it had): %w", path, err)
	}
	old := e.cfg.Load()
	if reflect.DeepEqual(*old, cfg) {
		return path + ": unchanged", nil
	}
	e.cfg.Store(&cfg)
	return path + " reloaded: " + modelChanges(*old, cfg), nil
}

// modelChanges names the models added, removed and changed between two
// models.yml, and the default when it moved.
func modelChanges(old, cfg modelconfig.Config) string {
	index := func(c modelconfig.Config) map[string]modelconfig.Model {
		m := map[string]modelconfig.Model{}
		for _, r := range c.Models() {
			m[r.Provider+"/"+r.Model.ID] = r.Model
		}
		return m
	}
	before, after := index(old), index(cfg)
	var added, removed, changed []string
	for k, m := range after {
		b, ok := before[k]
		switch {
		case !ok:
			added = append(added, k)
		case !reflect.DeepEqual(b, m):
			changed = append(changed, k)
		}
	}
	for k := range before {
		if _, ok := after[k]; !ok {
			removed = append(removed, k)
		}
	}
	var parts []string
	for _, l := range []struct {
		what  string
		names []string
	}{{"added", added}, {"removed", removed}, {"changed", changed}} {
		if len(l.names) > 0 {
			slices.Sort(l.names)
			parts = append(parts, l.what+" "+strings.Join(l.names, ", "))
		}
	}
	if !reflect.DeepEqual(old.Default, cfg.Default) {
		parts = append(parts, fmt.Sprintf("default %s/%s", cfg.Default.Provider, cfg.Default.Model))
	}
	if len(parts) == 0 {
		parts = append(parts, "providers' settings changed")
	}
	return fmt.Sprintf("%d models; %s", len(after), strings.Join(parts, "; "))
}
