package sim

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"
)

// Action is one thing the runner does at a time in the run.
type Action struct {
	At       time.Duration
	Kind     string // prompt, update, cancel, detach, reattach, or a fault kind
	Session  string // empty for kill_daemon and kill_llm
	Client   int    // 0-based, for detach, reattach and drop_client
	Text     string
	Position string
	Prompt   string // the prompt's key, for update and cancel
	For      time.Duration
}

// The runner's own action kinds besides the faults.
const (
	actPrompt   = "prompt"
	actUpdate   = "update"
	actCancel   = "cancel"
	actDetach   = "detach"
	actReattach = "reattach"
)

func (a Action) String() string {
	s := fmt.Sprintf("+%-8s %s", a.At.Round(time.Millisecond), a.Kind)
	if a.Session != "" {
		s += " " + a.Session
	}
	if a.Kind == DropClient || a.Kind == actDetach || a.Kind == actReattach {
		s += fmt.Sprintf(" client %d", a.Client+1)
	}
	return s
}

// Plan is the scenario's schedule under seed: every prompt, queue edit,
// detach and fault, in time order. The same scenario and seed always give
// the same plan; the seed decides random fault times and kinds and which
// session or client a fault without a target hits.
func Plan(s *Scenario, seed uint64) []Action {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	var out []Action
	for _, sp := range s.Sessions {
		for r := 1; r <= sp.Count; r++ {
			name := sp.Name
			if sp.Count > 1 {
				name = replicaName(sp.Name, r)
			}
			out = append(out, sessionActions(name, sp)...)
		}
	}
	for _, f := range s.Faults {
		n := max(f.Count, 1)
		for i := range n {
			out = append(out, fault(s, rng, f.Kind, f.Session, f.At.D()+time.Duration(i)*f.Every.D(), f.For.D()))
		}
	}
	if r := s.Random; r != nil {
		for range r.Count {
			at := r.From.D() + time.Duration(rng.Int64N(int64(r.To-r.From)))
			kind := r.Kinds[rng.IntN(len(r.Kinds))]
			out = append(out, fault(s, rng, kind, "", at, 0))
		}
	}
	slices.SortStableFunc(out, func(a, b Action) int { return int(a.At - b.At) })
	return out
}

func sessionActions(name string, sp SessionSpec) []Action {
	var out []Action
	for i, p := range sp.Prompts {
		for k := range max(p.Count, 1) {
			key := fmt.Sprintf("p%d.%d", i+1, k+1)
			out = append(out, Action{At: p.At.D() + time.Duration(k)*p.Every.D(), Kind: actPrompt, Session: name,
				Text: p.Text, Position: p.Position, Prompt: key})
			if p.UpdateAt != 0 {
				out = append(out, Action{At: p.UpdateAt.D(), Kind: actUpdate, Session: name, Text: p.UpdateText, Prompt: key})
			}
			if p.CancelAt != 0 {
				out = append(out, Action{At: p.CancelAt.D(), Kind: actCancel, Session: name, Prompt: key})
			}
		}
	}
	for _, d := range sp.Detach {
		out = append(out, Action{At: d.At.D(), Kind: actDetach, Session: name, Client: d.Client - 1},
			Action{At: d.At.D() + d.ReattachAfter.D(), Kind: actReattach, Session: name, Client: d.Client - 1})
	}
	return out
}

// fault resolves a fault's target with rng: a spec name with several
// sessions, or none, is narrowed to one session (and one client).
func fault(s *Scenario, rng *rand.Rand, kind, target string, at, dur time.Duration) Action {
	a := Action{At: at, Kind: kind, For: dur}
	if kind == KillDaemon || kind == KillLLM {
		if a.For == 0 && kind == KillLLM {
			a.For = 300 * time.Millisecond
		}
		return a
	}
	var pool []string
	for _, sp := range s.Sessions {
		for r := 1; r <= sp.Count; r++ {
			name := sp.Name
			if sp.Count > 1 {
				name = replicaName(sp.Name, r)
			}
			if target == "" || target == sp.Name || target == name {
				pool = append(pool, name)
			}
		}
	}
	a.Session = pool[rng.IntN(len(pool))]
	if kind == DropClient {
		a.Client = rng.IntN(s.spec(a.Session).Clients)
	}
	return a
}

// spec is the spec a session name belongs to.
func (s *Scenario) spec(name string) *SessionSpec {
	for i := range s.Sessions {
		sp := &s.Sessions[i]
		if sp.Name == name {
			return sp
		}
		for r := 1; r <= sp.Count; r++ {
			if replicaName(sp.Name, r) == name {
				return sp
			}
		}
	}
	return nil
}
