package sim

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
)

// Result is what a run did and what its checks found.
type Result struct {
	Scenario     string
	Seed         uint64
	Plan         []Action
	Done         []done
	Wall         time.Duration
	Sessions     []SessionOutcome
	Violations   []Violation
	Checked      map[string]int // invariant → how many things it checked
	Notes        []string
	Events       int64 // committed events of the scenario's sessions
	Updates      int   // updates the clients received
	Kills        int
	Restarts     []time.Duration // SIGKILL to every client reattached
	LostUnacked  int             // prompts lost with their connection before the store had them
	ShutdownCode int
	Goroutines   [2]int // the runner's, before and after

	mu sync.Mutex
}

type done struct {
	Action Action
	At     time.Duration
}

// Violation is one invariant broken, with the events around it.
type Violation struct {
	Invariant string
	Session   string
	Seq       int64
	Detail    string
	Around    []string
}

// SessionOutcome is one session's run.
type SessionOutcome struct {
	Name, ID  string
	Prompts   int
	Stops     map[string]int // stop reason (or "lost") → prompts
	Updates   int
	Attaches  int
	Approvals int64
	Events    int
	Latencies []time.Duration // prompt sent → answered
}

func (r *Result) violate(v Violation) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.Violations = append(r.Violations, v)
}

func (r *Result) count(inv string) { r.countN(inv, 1) }

func (r *Result) countN(inv string, n int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.Checked == nil {
		r.Checked = map[string]int{}
	}
	r.Checked[inv] += n
}

func (r *Result) note(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.Notes = append(r.Notes, fmt.Sprintf(format, args...))
}

// OK reports whether no invariant was broken.
func (r *Result) OK() bool { return len(r.Violations) == 0 }

func (r *runner) outcome(s *session, evs []storeEvent) SessionOutcome {
	o := SessionOutcome{Name: s.name, ID: s.id, Stops: map[string]int{}, Approvals: s.approvals.Load(), Events: len(evs)}
	f := foldPrompts(evs)
	for _, p := range s.promptsCopy() {
		o.Prompts++
		switch id, stored := f.byText[p.text]; {
		case p.stop != "":
			o.Stops[p.stop]++
			o.Latencies = append(o.Latencies, p.answered.Sub(p.sent))
		case stored && f.stopped[id] != "":
			o.Stops[f.stopped[id]]++
		case stored && f.ended(id):
			o.Stops[f.ends[cmp.Or(f.runOf[id], id)]+" (answer lost)"]++
		default:
			o.Stops["lost"]++
		}
	}
	for _, c := range s.clients {
		o.Updates += len(c.seen())
		o.Attaches += c.attaches
	}
	return o
}

// Report writes the run's report: per-session outcomes, the faults, the
// invariants with what they checked, the violations with the events
// around them, throughput and latency histograms.
func (r *Result) Report(w io.Writer) {
	fmt.Fprintf(w, "scenario %s, seed %d: %d sessions, %d actions, wall %s\n", r.Scenario, r.Seed, len(r.Sessions), len(r.Plan), r.Wall.Round(time.Millisecond))
	fmt.Fprintln(w, "\nsessions:")
	for _, s := range r.Sessions {
		fmt.Fprintf(w, "  %-14s %-26s prompts %d: %s; updates %d, reattaches %d, approvals %d, events %d\n",
			s.Name, s.ID, s.Prompts, stops(s.Stops), s.Updates, s.Attaches, s.Approvals, s.Events)
	}
	fmt.Fprintln(w, "\nfaults:")
	n := 0
	for _, d := range r.Done {
		if slices.Contains(faultKinds, d.Action.Kind) {
			fmt.Fprintf(w, "  %s (done at +%s)\n", d.Action, d.At.Round(time.Millisecond))
			n++
		}
	}
	if n == 0 {
		fmt.Fprintln(w, "  none")
	}
	if len(r.Restarts) > 0 {
		fmt.Fprintf(w, "  daemon SIGKILLed %d times; kill to every client reattached: %s\n", r.Kills, durations(r.Restarts))
		if n := len(r.Restarts) / 10; n > 0 {
			// The logs grow from kill to kill: a restart whose cost
			// follows the history shows it here.
			fmt.Fprintf(w, "    the first %d restarts: %s; the last %d: %s\n", n, durations(r.Restarts[:n]), n, durations(r.Restarts[len(r.Restarts)-n:]))
		}
	}
	fmt.Fprintln(w, "\ninvariants:")
	for _, inv := range []string{invAcked, invOnce, invToolOnce, invPromptEnds, invLeaks, invIntegrity, invUp, invShutdown} {
		bad := 0
		for _, v := range r.Violations {
			if v.Invariant == inv {
				bad++
			}
		}
		verdict := "ok"
		if bad > 0 {
			verdict = fmt.Sprintf("%d VIOLATION(S)", bad)
		}
		fmt.Fprintf(w, "  %-34s %-16s (%d checked)\n", inv, verdict, r.Checked[inv])
	}
	fmt.Fprintf(w, "  goroutines of the simulator: %d before, %d after; prompts lost before stored: %d\n",
		r.Goroutines[0], r.Goroutines[1], r.LostUnacked)
	fmt.Fprintf(w, "\nviolations: %d\n", len(r.Violations))
	for _, v := range r.Violations {
		fmt.Fprintf(w, "  [%s] %s %s\n", v.Invariant, v.Session, v.Detail)
		for _, e := range v.Around {
			fmt.Fprintf(w, "      %s\n", e)
		}
	}
	secs := max(r.Wall.Seconds(), 1e-9)
	fmt.Fprintf(w, "\nthroughput: %d events committed (%.0f/s), %d updates delivered (%.0f/s)\n",
		r.Events, float64(r.Events)/secs, r.Updates, float64(r.Updates)/secs)
	var lat []time.Duration
	for _, s := range r.Sessions {
		lat = append(lat, s.Latencies...)
	}
	fmt.Fprintf(w, "latency, prompt sent to answered (%d prompts):\n", len(lat))
	histogram(w, lat)
	if len(r.Notes) > 0 {
		fmt.Fprintln(w, "\nnotes:")
		for _, n := range r.Notes {
			fmt.Fprintf(w, "  %s\n", n)
		}
	}
}

func stops(m map[string]int) string {
	keys := slices.Sorted(maps.Keys(m))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

func durations(ds []time.Duration) string {
	s := slices.Clone(ds)
	slices.Sort(s)
	return fmt.Sprintf("median %s, max %s", s[len(s)/2].Round(time.Millisecond), s[len(s)-1].Round(time.Millisecond))
}

var buckets = []time.Duration{10 * time.Millisecond, 50 * time.Millisecond, 100 * time.Millisecond, 250 * time.Millisecond,
	500 * time.Millisecond, time.Second, 2500 * time.Millisecond, 5 * time.Second, 10 * time.Second, 30 * time.Second}

// histogram prints counts per bucket with a bar, and the median and p99.
func histogram(w io.Writer, ds []time.Duration) {
	if len(ds) == 0 {
		fmt.Fprintln(w, "  (none)")
		return
	}
	counts := make([]int, len(buckets)+1)
	for _, d := range ds {
		i, _ := slices.BinarySearch(buckets, d)
		counts[i]++
	}
	most := slices.Max(counts)
	for i, c := range counts {
		if c == 0 {
			continue
		}
		label := "≥ " + buckets[len(buckets)-1].String()
		if i < len(buckets) {
			label = "< " + buckets[i].String()
		}
		fmt.Fprintf(w, "  %-8s %-40s %d\n", label, strings.Repeat("#", max(1, c*40/most)), c)
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	fmt.Fprintf(w, "  median %s, p99 %s, max %s\n", s[len(s)/2].Round(time.Millisecond),
		s[min(len(s)-1, len(s)*99/100)].Round(time.Millisecond), s[len(s)-1].Round(time.Millisecond))
}

func runtimeGoroutines() int { return runtime.NumGoroutine() }
