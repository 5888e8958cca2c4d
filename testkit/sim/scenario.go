package sim

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/troupehq/troupe/testkit/llmserver"
)

// Scenario is one scenario file: sessions with scripted models, prompts,
// clients and faults. See the package documentation for the format.
type Scenario struct {
	Name         string        `yaml:"name"`
	Seed         uint64        `yaml:"seed"`
	ApprovalMode string        `yaml:"approval_mode"`
	Settle       Duration      `yaml:"settle"`
	Sessions     []SessionSpec `yaml:"sessions"`
	Faults       []FaultSpec   `yaml:"faults"`
	Random       *RandomFaults `yaml:"random"`
}

// SessionSpec describes Count sessions alike.
type SessionSpec struct {
	Name    string     `yaml:"name"`
	Count   int        `yaml:"count"`
	Clients int        `yaml:"clients"`
	Approve string     `yaml:"approve"`
	Model   yaml.Node  `yaml:"model"`
	Prompts []PromptOp `yaml:"prompts"`
	Detach  []DetachOp `yaml:"detach"`
	script  llmserver.Script
}

// PromptOp sends a prompt at At (and Count-1 more, Every apart). Position
// head puts it first in the queue; UpdateAt/CancelAt edit or cancel it
// while it is queued.
type PromptOp struct {
	At         Duration `yaml:"at"`
	Every      Duration `yaml:"every"`
	Count      int      `yaml:"count"`
	Text       string   `yaml:"text"`
	Position   string   `yaml:"position"`
	UpdateAt   Duration `yaml:"update_at"`
	UpdateText string   `yaml:"update_text"`
	CancelAt   Duration `yaml:"cancel_at"`
}

// DetachOp detaches a client (session/detach, then closes its socket) and
// reattaches it after_message the last update it saw, ReattachAfter later.
type DetachOp struct {
	At            Duration `yaml:"at"`
	Client        int      `yaml:"client"`
	ReattachAfter Duration `yaml:"reattach_after"`
}

// FaultSpec is a fault at At, repeated Count times Every apart. Session
// names a session (a spec name picks one of its sessions by the seed);
// empty picks any session by the seed.
type FaultSpec struct {
	At      Duration `yaml:"at"`
	Every   Duration `yaml:"every"`
	Count   int      `yaml:"count"`
	Kind    string   `yaml:"kind"`
	Session string   `yaml:"session"`
	For     Duration `yaml:"for"`
}

// RandomFaults are Count faults of the given kinds at times drawn from
// [From, To) by the seed.
type RandomFaults struct {
	Count int      `yaml:"count"`
	Kinds []string `yaml:"kinds"`
	From  Duration `yaml:"from"`
	To    Duration `yaml:"to"`
}

// The fault kinds.
const (
	KillDaemon  = "kill_daemon"  // SIGKILL the daemon, check the store, start another on the same home
	KillSession = "kill_session" // stop a session's actor (REST kill); its clients reattach
	KillTool    = "kill_tool"    // SIGKILL the processes running in a session's directory
	KillLLM     = "kill_llm"     // cut every stream of the model server; 503 while it "restarts"
	DropClient  = "drop_client"  // close a client's socket at once; it reattaches after_message
)

// maxCount bounds every count: a plan is built whole before the run.
const maxCount = 100_000

var faultKinds = []string{KillDaemon, KillSession, KillTool, KillLLM, DropClient}

// Duration is a time.Duration written like "250ms".
type Duration time.Duration

// UnmarshalYAML parses a Go duration string.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	v, err := time.ParseDuration(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: want a duration like \"250ms\": %w", n.Line, err)
	}
	if v < 0 {
		return fmt.Errorf("line %d: negative duration %s", n.Line, n.Value)
	}
	*d = Duration(v)
	return nil
}

// D is the value as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// Load reads and checks a scenario file.
func Load(path string) (*Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read scenario: %w", err)
	}
	s, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("scenario %s: %w", path, err)
	}
	return s, nil
}

// Parse parses and checks a scenario. Unknown keys are errors.
func Parse(data []byte) (*Scenario, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var s Scenario
	if err := dec.Decode(&s); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("scenario is empty")
		}
		return nil, fmt.Errorf("parse yaml: %w", err)
	}
	if err := s.check(); err != nil {
		return nil, err
	}
	return &s, nil
}

func (s *Scenario) check() error {
	if s.Settle == 0 {
		s.Settle = Duration(60 * time.Second)
	}
	switch s.ApprovalMode {
	case "":
		s.ApprovalMode = "default"
	case "default", "auto_edit", "yolo":
	default:
		return fmt.Errorf("approval_mode %q: want default, auto_edit or yolo", s.ApprovalMode)
	}
	if len(s.Sessions) == 0 {
		return errors.New("no sessions")
	}
	names := map[string]bool{}
	for i := range s.Sessions {
		sp := &s.Sessions[i]
		if err := sp.check(); err != nil {
			return fmt.Errorf("session %d (%s): %w", i+1, sp.Name, err)
		}
		if names[sp.Name] {
			return fmt.Errorf("session %d: name %q used twice", i+1, sp.Name)
		}
		names[sp.Name] = true
	}
	for i, f := range s.Faults {
		if !slices.Contains(faultKinds, f.Kind) {
			return fmt.Errorf("fault %d: kind %q: want one of %v", i+1, f.Kind, faultKinds)
		}
		if f.Count < 0 || f.Count > maxCount {
			return fmt.Errorf("fault %d: count must be 0..%d", i+1, maxCount)
		}
		if f.Count > 1 && f.Every == 0 {
			return fmt.Errorf("fault %d: count %d needs every", i+1, f.Count)
		}
		if f.Session != "" && !names[f.Session] && !s.isReplica(f.Session) {
			return fmt.Errorf("fault %d: no session %q", i+1, f.Session)
		}
	}
	if r := s.Random; r != nil {
		if r.Count < 0 || r.Count > maxCount || (r.Count > 0 && r.To <= r.From) {
			return fmt.Errorf("random: want count 0..%d and to after from", maxCount)
		}
		if len(r.Kinds) == 0 && r.Count > 0 {
			return errors.New("random: no kinds")
		}
		for _, k := range r.Kinds {
			if !slices.Contains(faultKinds, k) {
				return fmt.Errorf("random: kind %q: want one of %v", k, faultKinds)
			}
		}
	}
	return nil
}

func (sp *SessionSpec) check() error {
	if sp.Name == "" {
		return errors.New("no name")
	}
	if sp.Count == 0 {
		sp.Count = 1
	}
	if sp.Clients == 0 {
		sp.Clients = 1
	}
	if sp.Count < 0 || sp.Clients < 0 || sp.Count > maxCount || sp.Clients > 100 {
		return fmt.Errorf("count must be 1..%d and clients 1..100", maxCount)
	}
	switch sp.Approve {
	case "":
		sp.Approve = "allow"
	case "allow", "deny":
	default:
		return fmt.Errorf("approve %q: want allow or deny", sp.Approve)
	}
	if sp.Model.Kind == 0 {
		return errors.New("no model script")
	}
	raw, err := yaml.Marshal(&sp.Model)
	if err != nil {
		return fmt.Errorf("model: %w", err)
	}
	if sp.script, err = llmserver.ParseScript(raw); err != nil {
		return fmt.Errorf("model: %w", err)
	}
	for i, p := range sp.Prompts {
		if p.Text == "" {
			return fmt.Errorf("prompt %d: no text", i+1)
		}
		if p.Count < 0 || p.Count > maxCount {
			return fmt.Errorf("prompt %d: count must be 0..%d", i+1, maxCount)
		}
		if p.Count > 1 && p.Every == 0 {
			return fmt.Errorf("prompt %d: count %d needs every", i+1, p.Count)
		}
		if p.Position != "" && p.Position != "head" && p.Position != "tail" {
			return fmt.Errorf("prompt %d: position %q: want head or tail", i+1, p.Position)
		}
		if (p.UpdateAt != 0 || p.CancelAt != 0) && p.Count > 1 {
			return fmt.Errorf("prompt %d: update_at and cancel_at apply to one prompt, not count %d", i+1, p.Count)
		}
		if p.UpdateAt != 0 && p.UpdateText == "" {
			return fmt.Errorf("prompt %d: update_at needs update_text", i+1)
		}
	}
	for i, d := range sp.Detach {
		if d.Client < 1 || d.Client > sp.Clients {
			return fmt.Errorf("detach %d: client %d: want 1..%d", i+1, d.Client, sp.Clients)
		}
	}
	return nil
}

// isReplica reports whether name is one session of a spec with count > 1
// (spec-N).
func (s *Scenario) isReplica(name string) bool {
	for _, sp := range s.Sessions {
		for i := 1; i <= sp.Count; i++ {
			if sp.Count > 1 && name == replicaName(sp.Name, i) {
				return true
			}
		}
	}
	return false
}

func replicaName(spec string, i int) string { return fmt.Sprintf("%s-%d", spec, i) }

// sessionNames lists every session the scenario runs, in order.
func (s *Scenario) sessionNames() []string {
	var out []string
	for _, sp := range s.Sessions {
		if sp.Count == 1 {
			out = append(out, sp.Name)
			continue
		}
		for i := 1; i <= sp.Count; i++ {
			out = append(out, replicaName(sp.Name, i))
		}
	}
	return out
}
