package agentcatalog

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// entry is an agent as resolved: its distribution after extends and
// agentOverrides, and the identity its install directory is keyed on.
type entry struct {
	id, name, description, version string
	source                         string // "config" | "registry"
	dist                           dist
	// installID keys the install directory: a derived agent that only
	// layers args or env on its base shares the base's install.
	installID  string
	chain      []string
	onboarding json.RawMessage
	sha256     string // agentOverrides' checksum pin
}

// dist is a resolved distribution: the registry's kinds, or exec (a
// command the home's configuration names).
type dist struct {
	npx    *npxDist
	binary map[string]*binaryTarget
	uvx    *uvxDist
	exec   *execDist
}

type execDist struct {
	command string
	args    []string
	env     map[string]string
}

func (d dist) kinds() []string {
	var k []string
	if d.npx != nil {
		k = append(k, "npx")
	}
	if d.binary != nil {
		k = append(k, "binary")
	}
	if d.uvx != nil {
		k = append(k, "uvx")
	}
	if d.exec != nil {
		k = append(k, "exec")
	}
	return k
}

// maxExtendsDepth is Hydra's backstop on an extends chain.
const maxExtendsDepth = 8

func (c *Catalog) resolve(id string) (entry, error) { return c.resolveIn(id, nil) }

// resolveIn resolves id with stack the derived ids being resolved, so a
// cycle is named rather than recursed into.
func (c *Catalog) resolveIn(id string, stack []string) (entry, error) {
	if lid, def, ok := c.findLocal(id); ok {
		if def.Extends == "" {
			return localEntry(lid, def), nil
		}
		if slices.Contains(stack, lid) {
			return entry{}, fmt.Errorf("agent %s: extends cycle (%s)", lid, strings.Join(append(stack, lid), " -> "))
		}
		if len(stack)+1 >= maxExtendsDepth {
			return entry{}, fmt.Errorf("agent %s: extends chain deeper than %d", lid, maxExtendsDepth)
		}
		base, err := c.resolveIn(def.Extends, append(slices.Clone(stack), lid))
		if err != nil {
			return entry{}, fmt.Errorf("agent %s: extends %q: %w", lid, def.Extends, err)
		}
		return c.override(derive(lid, def, base)), nil
	}
	doc := c.document()
	lc := strings.ToLower(id)
	for _, match := range []func(registryAgent) bool{
		func(a registryAgent) bool { return a.ID == id },
		func(a registryAgent) bool {
			return a.Distribution.Npx != nil && packageBase(a.Distribution.Npx.Package) == id
		},
		func(a registryAgent) bool { return strings.ToLower(a.ID) == lc+"-acp" },
	} {
		if i := slices.IndexFunc(doc.Agents, match); i >= 0 && validID(doc.Agents[i].ID) {
			return c.fromRegistry(doc.Agents[i]), nil
		}
	}
	if lc != "" {
		var hits []registryAgent
		for _, a := range doc.Agents {
			if strings.HasPrefix(strings.ToLower(a.ID), lc) && validID(a.ID) {
				hits = append(hits, a)
			}
		}
		if len(hits) == 1 {
			return c.fromRegistry(hits[0]), nil
		}
	}
	if err := c.RegistryError(); err != nil {
		return entry{}, fmt.Errorf("%w %q (the registry is unavailable: %v)", ErrUnknown, id, err)
	}
	return entry{}, fmt.Errorf("%w %q", ErrUnknown, id)
}

// findLocal finds a configured agent by id, or by the implied "-acp"
// suffix.
func (c *Catalog) findLocal(id string) (string, localAgent, bool) {
	if a, ok := c.cfg.agents[id]; ok {
		return id, a, true
	}
	lc := strings.ToLower(id)
	for _, k := range slices.Sorted(maps.Keys(c.cfg.agents)) {
		if strings.ToLower(k) == lc+"-acp" {
			return k, c.cfg.agents[k], true
		}
	}
	return "", localAgent{}, false
}

// localEntry is a configured agent that names its own command (the id
// when it names none, Hydra's default).
func localEntry(id string, def localAgent) entry {
	return entry{id: id, name: cmp.Or(def.Name, id), description: def.Description, version: "local", source: "config",
		dist:      dist{exec: &execDist{command: expandHome(cmp.Or(def.Command, id)), args: expandAll(def.Args), env: maps.Clone(def.Env)}},
		installID: id, chain: []string{id}}
}

// derive layers def on base: a command replaces the distribution; else
// args replace and env merges into each kind the base has.
func derive(id string, def localAgent, base entry) entry {
	e := base
	e.id, e.source = id, "config"
	e.name = cmp.Or(def.Name, base.name)
	e.description = cmp.Or(def.Description, base.description)
	e.chain = append([]string{id}, base.chain...)
	if def.Command != "" {
		l := localEntry(id, def)
		e.version, e.dist, e.installID = l.version, l.dist, id
		return e
	}
	args := expandAll(def.Args)
	layer := func(a []string, env map[string]string) ([]string, map[string]string) {
		if def.Args != nil {
			a = args
		}
		if def.Env != nil {
			merged := maps.Clone(env)
			if merged == nil {
				merged = map[string]string{}
			}
			maps.Copy(merged, def.Env)
			env = merged
		}
		return a, env
	}
	d := dist{}
	if n := base.dist.npx; n != nil {
		cp := *n
		cp.Args, cp.Env = layer(n.Args, n.Env)
		d.npx = &cp
	}
	if u := base.dist.uvx; u != nil {
		cp := *u
		cp.Args, cp.Env = layer(u.Args, u.Env)
		d.uvx = &cp
	}
	if x := base.dist.exec; x != nil {
		cp := *x
		cp.args, cp.env = layer(x.args, x.env)
		d.exec = &cp
	}
	if base.dist.binary != nil {
		d.binary = map[string]*binaryTarget{}
		for k, t := range base.dist.binary {
			if t == nil {
				continue
			}
			cp := *t
			cp.Args, cp.Env = layer(t.Args, t.Env)
			d.binary[k] = &cp
		}
	}
	e.dist = d
	return e
}

// fromRegistry is a registry agent with the home's agentOverrides.
func (c *Catalog) fromRegistry(a registryAgent) entry {
	d := dist{npx: a.Distribution.Npx, binary: a.Distribution.Binary, uvx: a.Distribution.Uvx}
	return c.override(entry{id: a.ID, name: cmp.Or(a.Name, a.ID), description: a.Description, version: a.Version,
		source: "registry", dist: d, installID: a.ID, chain: []string{a.ID}, onboarding: a.Onboarding})
}

// override applies agentOverrides, most specific id of the chain first: a
// packageSpec pins the npm package (and keys its own install), a sha256
// gives the archive's checksum.
func (c *Catalog) override(e entry) entry {
	for _, id := range e.chain {
		o, ok := c.cfg.overrides[id]
		if !ok {
			continue
		}
		if e.sha256 == "" {
			e.sha256 = o.SHA256
		}
		if o.PackageSpec != "" && e.dist.npx != nil && !e.pinned() {
			cp := *e.dist.npx
			cp.Package = o.PackageSpec
			e.dist.npx = &cp
			e.version = pinnedVersion(o.PackageSpec)
			e.installID = e.id
		}
	}
	return e
}

func (e entry) pinned() bool { return strings.HasPrefix(e.version, "pin-") || e.version == "pinned" }

// pinnedVersion is the install-directory version of a pinned spec, as
// Hydra keys it: "pin-<version>", or "pinned" for a bare name.
func pinnedVersion(spec string) string {
	name := packageName(spec)
	v := strings.TrimPrefix(spec[len(name):], "@")
	v = unsafeChars().ReplaceAllString(v, "_")
	if v == "" {
		return "pinned"
	}
	return "pin-" + v
}

var unsafeChars = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^A-Za-z0-9._-]`) })

// packageName is an npm spec's package name ("@s/n@1" → "@s/n").
func packageName(spec string) string {
	from := 0
	if strings.HasPrefix(spec, "@") {
		i := strings.Index(spec, "/")
		if i < 0 {
			return spec
		}
		from = i + 1
	}
	if i := strings.Index(spec[from:], "@"); i > 0 {
		return spec[:from+i]
	}
	return spec
}

// packageBase is an npm spec's name without its scope ("@s/n@1" → "n").
func packageBase(spec string) string {
	n := packageName(spec)
	if i := strings.LastIndex(n, "/"); i >= 0 {
		return n[i+1:]
	}
	return n
}

func expandAll(args []string) []string {
	if args == nil {
		return nil
	}
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = expandHome(a)
	}
	return out
}
