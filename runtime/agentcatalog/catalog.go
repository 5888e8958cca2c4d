package agentcatalog

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ErrUnknown is Lookup's answer for an id no source names.
var ErrUnknown = errors.New("unknown agent")

// Agent is one agent the daemon can start.
type Agent struct {
	ID          string
	Name        string
	Description string
	Version     string
	// Source says where the entry comes from: "config" (the home's own
	// configuration) or "registry".
	Source string
	Launch Launch
}

// Launch is how the agent's process is started: the daemon speaks ACP over
// its stdin and stdout.
type Launch struct {
	Command string
	Args    []string
	Env     map[string]string
}

// Catalog is the agents one home's configuration names.
type Catalog struct {
	agents map[string]Agent
}

// Load reads home's config.json "agents" map; a home without one has no
// agents beyond the built-in one, which the daemon serves itself.
func Load(home string) (*Catalog, error) {
	c := &Catalog{agents: map[string]Agent{}}
	path := filepath.Join(home, "config.json")
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read agents: %w", err)
	}
	var raw struct {
		Agents map[string]localAgent `json:"agents"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("read agents from %s: %w", path, err)
	}
	for id, a := range raw.Agents {
		if err := c.addLocal(id, a); err != nil {
			return nil, fmt.Errorf("%s: agents.%s: %w", path, id, err)
		}
	}
	return c, nil
}

// localAgent is one entry of config.json's "agents" map, the fields Hydra
// 0.1.161 reads for a local agent.
type localAgent struct {
	Extends     string            `json:"extends"`
	Name        string            `json:"name"`
	Description string            `json:"description"`
	Command     string            `json:"command"`
	Args        []string          `json:"args"`
	Env         map[string]string `json:"env"`
}

func (c *Catalog) addLocal(id string, a localAgent) error {
	if strings.TrimSpace(id) == "" {
		return errors.New("an agent needs an id")
	}
	if a.Extends != "" {
		return fmt.Errorf("extends %q: deriving from another agent needs the ACP registry, which is not configured", a.Extends)
	}
	cmd := a.Command
	if cmd == "" {
		cmd = id // Hydra's default: the command is the agent's id
	}
	name := a.Name
	if name == "" {
		name = id
	}
	c.agents[id] = Agent{ID: id, Name: name, Description: a.Description, Source: "config",
		Launch: Launch{Command: cmd, Args: slices.Clone(a.Args), Env: a.Env}}
	return nil
}

// Lookup resolves id to the agent to start.
func (c *Catalog) Lookup(id string) (Agent, error) {
	if a, ok := c.agents[id]; ok {
		return a, nil
	}
	return Agent{}, fmt.Errorf("%w %q", ErrUnknown, id)
}

// List is every agent, sorted by id.
func (c *Catalog) List() []Agent {
	out := make([]Agent, 0, len(c.agents))
	for _, a := range c.agents {
		out = append(out, a)
	}
	slices.SortFunc(out, func(a, b Agent) int { return strings.Compare(a.ID, b.ID) })
	return out
}
