package sim

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"time"
)

// The invariants, as the report names them.
const (
	invAcked      = "acknowledged events stored"
	invOnce       = "each update seen once"
	invToolOnce   = "completed tool calls ran once"
	invPromptEnds = "every prompt ends with a reason"
	invLeaks      = "no leaks after shutdown"
	invIntegrity  = "store integrity_check"
	invUp         = "daemon dies only when killed"
	invShutdown   = "daemon shuts down with exit 0"
)

// checkStore checks, while no daemon writes (after a SIGKILL) or at the
// end, that every event a client was shown is in the store, and the
// file's integrity.
func (r *runner) checkStore(when string) {
	if r.home == "" {
		return
	}
	st, err := openStore(filepath.Join(r.home, "troupe.db"))
	if err != nil {
		r.res.violate(Violation{Invariant: invIntegrity, Detail: err.Error()})
		return
	}
	defer st.close()
	for _, s := range r.sessions {
		// Run after every kill, over every event shown so far: what the store
		// holds is read as its span, the events themselves only for a log
		// with holes.
		n, first, last, err := st.span(s.id)
		if err != nil {
			r.res.violate(Violation{Invariant: invAcked, Session: s.name, Detail: err.Error()})
			continue
		}
		var evs []storeEvent
		has := func(seq int64) bool { return seq <= last }
		if n > 0 && (first != 1 || n != last) {
			if evs, err = st.events(s.id); err != nil {
				r.res.violate(Violation{Invariant: invAcked, Session: s.name, Detail: err.Error()})
				continue
			}
			have := make(map[int64]bool, len(evs))
			for _, e := range evs {
				have[e.Seq] = true
			}
			has = func(seq int64) bool { return have[seq] }
		}
		for _, c := range s.clients {
			checked, u, missing := c.firstMissing(has)
			r.res.countN(invAcked, checked)
			if !missing {
				continue
			}
			if evs == nil {
				evs, _ = st.events(s.id)
			}
			r.res.violate(Violation{Invariant: invAcked, Session: s.name, Seq: u.seq,
				Detail: fmt.Sprintf("%s: %s was shown %s ev-%d, which the store does not hold", when, c.name(), u.kind, u.seq),
				Around: around(evs, u.seq)})
		}
	}
	r.integrityOn(st, when)
}

func (r *runner) integrity(when string) {
	st, err := openStore(filepath.Join(r.home, "troupe.db"))
	if err != nil {
		r.res.violate(Violation{Invariant: invIntegrity, Detail: err.Error()})
		return
	}
	defer st.close()
	r.integrityOn(st, when)
}

func (r *runner) integrityOn(st *store, when string) {
	v, err := st.integrity()
	r.res.count(invIntegrity)
	if err != nil || v != "ok" {
		r.res.violate(Violation{Invariant: invIntegrity, Detail: fmt.Sprintf("%s: %q %v", when, v, err)})
	}
}

// allEnded reports whether every prompt sent has ended: answered, or (its
// answer lost with a connection) ended in the store, or never stored.
func (r *runner) allEnded() bool {
	if r.home == "" {
		for _, s := range r.sessions {
			for _, p := range s.promptsCopy() {
				if p.stop == "" && !p.lost {
					return false
				}
			}
		}
		return true
	}
	st, err := openStore(filepath.Join(r.home, "troupe.db"))
	if err != nil {
		return false
	}
	defer st.close()
	for _, s := range r.sessions {
		// Asked every 200 ms while settling: the prompts' events alone.
		evs, err := st.promptEvents(s.id)
		if err != nil {
			return false
		}
		f := foldPrompts(evs)
		for _, id := range f.order {
			if !f.ended(id) {
				return false
			}
		}
		for _, p := range s.promptsCopy() {
			if p.stop != "" {
				continue
			}
			id, stored := f.byText[p.text]
			if !stored && p.lost {
				continue // lost before the daemon stored it
			}
			if !stored || !f.ended(id) {
				return false
			}
		}
	}
	return true
}

// prompts is the store's view of a session's prompts.
type prompts struct {
	order    []string
	byText   map[string]string // prompt text (as sent or updated) → message id
	runOf    map[string]string
	ends     map[string]string // run id → stop reason or error
	stopped  map[string]string // message id → cancel/amend reason
	noReason []int64           // run.ended seqs without a reason
}

func foldPrompts(evs []storeEvent) *prompts {
	f := &prompts{byText: map[string]string{}, runOf: map[string]string{}, ends: map[string]string{}, stopped: map[string]string{}}
	for _, e := range evs {
		var p struct {
			MessageID  string `json:"message_id"`
			RunID      string `json:"run_id"`
			StopReason string `json:"stop_reason"`
			Error      string `json:"error"`
			Reason     string `json:"reason"`
			Content    []struct {
				Text string `json:"text"`
			} `json:"content"`
		}
		_ = json.Unmarshal(e.Payload, &p)
		switch e.Kind {
		case "prompt.queued":
			f.order = append(f.order, p.MessageID)
			if len(p.Content) > 0 {
				f.byText[p.Content[0].Text] = p.MessageID
			}
		case "prompt.updated":
			if len(p.Content) > 0 {
				f.byText[p.Content[0].Text] = p.MessageID
			}
		case "prompt.delivered":
			f.runOf[p.MessageID] = p.RunID
		case "prompt.cancelled", "prompt.amended":
			f.stopped[p.MessageID] = cmp.Or(p.Reason, e.Kind)
		case "run.ended":
			reason := cmp.Or(p.StopReason, p.Error)
			if reason == "" {
				f.noReason = append(f.noReason, e.Seq)
				reason = "(none)"
			}
			f.ends[p.RunID] = reason
		}
	}
	return f
}

// ended reports whether prompt id ended: cancelled or amended, or its run
// ended.
func (f *prompts) ended(id string) bool {
	if _, ok := f.stopped[id]; ok {
		return true
	}
	run := cmp.Or(f.runOf[id], id)
	_, ok := f.ends[run]
	return ok
}

// finalChecks runs every invariant on the settled run, the daemon still up.
func (r *runner) finalChecks() {
	r.reviveIfDead()
	// One wait for every live client to read its last updates.
	r.textWait = time.Now().Add(15 * time.Second)
	if r.opts.Inject == "duplicate-update" {
		c := r.sessions[0].clients[0]
		c.mu.Lock()
		// The last with an anchor: a replay's closing state has none.
		for i := len(c.updates) - 1; i >= 0; i-- {
			if c.updates[i].seq > 0 {
				c.updates = append(c.updates, c.updates[i])
				break
			}
		}
		c.mu.Unlock()
		r.res.note("inject: %s was given its last update twice", c.name())
	}
	if r.home != "" {
		r.checkStore("at the end")
	}
	var st *store
	if r.home != "" {
		var err error
		if st, err = openStore(filepath.Join(r.home, "troupe.db")); err != nil {
			r.res.violate(Violation{Invariant: invAcked, Detail: err.Error()})
			return
		}
		defer st.close()
	}
	for _, s := range r.sessions {
		var evs []storeEvent
		if st != nil {
			var err error
			if evs, err = st.events(s.id); err != nil {
				r.res.violate(Violation{Invariant: invAcked, Session: s.name, Detail: err.Error()})
				continue
			}
		}
		r.checkOnce(s, evs)
		if st != nil {
			r.checkPrompts(s, evs)
			r.checkTools(s, evs)
		}
		r.res.Events += int64(len(evs))
		r.res.Sessions = append(r.res.Sessions, r.outcome(s, evs))
	}
}

// checkOnce: every client saw each update once, in seq order, and its text
// is the session's whole text as a fresh full attach replays it.
func (r *runner) checkOnce(s *session, evs []storeEvent) {
	fresh := &client{s: s, idx: len(s.clients)}
	if err := fresh.connect(r.d); err != nil {
		r.res.violate(Violation{Invariant: invOnce, Session: s.name, Detail: "fresh full attach: " + err.Error()})
		// A hung daemon would fail every session the same way, slowly.
		r.lastHealth = time.Time{}
		r.reviveIfDead()
		return
	}
	want := fresh.seen()
	fresh.drop()
	wantText := text(want)
	for _, c := range s.clients {
		// A live client may still be reading the run's last updates. (Its
		// own prompts end with their answers, not turn_complete: its last
		// seq may stay below a replay's.)
		for text(c.seen()) != wantText && time.Now().Before(r.textWait) {
			time.Sleep(50 * time.Millisecond)
		}
		got := c.seen()
		r.res.Updates += len(got)
		r.res.count(invOnce)
		var prev update
		for i, u := range got {
			if u.seq == 0 {
				continue
			}
			if u.seq < prev.seq || (u.seq == prev.seq && u.kind == prev.kind && u.text == prev.text) {
				r.res.violate(Violation{Invariant: invOnce, Session: s.name, Seq: u.seq,
					Detail: fmt.Sprintf("%s: update %d is ev-%d %s after ev-%d %s", c.name(), i, u.seq, u.kind, prev.seq, prev.kind),
					Around: around(evs, u.seq)})
				break
			}
			prev = u
		}
		if gotText := text(got); gotText != wantText {
			r.res.violate(Violation{Invariant: invOnce, Session: s.name,
				Detail: fmt.Sprintf("%s: its text differs from a full replay's:\n  got  %q\n  want %q", c.name(), clip(gotText), clip(wantText))})
		}
	}
}

// checkPrompts: every prompt the store holds ended with a reason, and so
// did every prompt sent whose answer was not lost.
func (r *runner) checkPrompts(s *session, evs []storeEvent) {
	f := foldPrompts(evs)
	for _, seq := range f.noReason {
		r.res.violate(Violation{Invariant: invPromptEnds, Session: s.name, Seq: seq, Detail: "run.ended without a stop reason or error", Around: around(evs, seq)})
	}
	for _, id := range f.order {
		r.res.count(invPromptEnds)
		if !f.ended(id) {
			r.res.violate(Violation{Invariant: invPromptEnds, Session: s.name, Detail: fmt.Sprintf("prompt %s queued and never ended", id), Around: tailOf(evs)})
		}
	}
	for _, p := range s.promptsCopy() {
		_, stored := f.byText[p.text]
		switch {
		case p.stop != "" || stored:
		case p.lost:
			r.res.LostUnacked++
		default:
			r.res.violate(Violation{Invariant: invPromptEnds, Session: s.name, Detail: fmt.Sprintf("prompt %s sent, neither answered nor stored: it vanished", p.key)})
		}
	}
}

// effectRe finds the side-effect file a bash command appends to.
var effectRe = regexp.MustCompile(`effects/([A-Za-z0-9_.-]+)`)

// checkTools: every tool call completed with success that appends to an
// effects/ file ran exactly once: the file has one line per such call.
func (r *runner) checkTools(s *session, evs []storeEvent) {
	args := map[string]string{}
	want := map[string]int{}
	for _, e := range evs {
		var p struct {
			ToolCallID string `json:"tool_call_id"`
			Name       string `json:"name"`
			Arguments  string `json:"arguments"`
			Status     string `json:"status"`
		}
		_ = json.Unmarshal(e.Payload, &p)
		switch e.Kind {
		case "tool.started":
			args[p.ToolCallID] = p.Arguments
		case "tool.completed":
			if p.Status != "success" || p.Name != "bash" {
				continue
			}
			if m := effectRe.FindStringSubmatch(args[p.ToolCallID]); m != nil {
				want[m[1]]++
			}
		}
	}
	for name, n := range want {
		r.res.count(invToolOnce)
		b, err := os.ReadFile(filepath.Join(s.cwd, "effects", name))
		got := strings.Count(string(b), "\n")
		if err != nil || got != n {
			r.res.violate(Violation{Invariant: invToolOnce, Session: s.name,
				Detail: fmt.Sprintf("effects/%s: %d completed call(s), the side effect happened %d time(s)", name, n, got)})
		}
	}
}

// leakChecks: no process is left in the sessions' directories or holding
// the home, and the runner's own goroutines are back to where they began.
func (r *runner) leakChecks(goroutines int) {
	r.res.count(invLeaks)
	if r.d.owned {
		if pids := processesUnder(r.work); len(pids) > 0 {
			r.res.violate(Violation{Invariant: invLeaks, Detail: fmt.Sprintf("processes left after shutdown: %v", pids)})
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	n := 0
	for {
		// Some of the net/http goroutines end a moment after their closes.
		if n = runtimeGoroutines(); n <= goroutines || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	r.res.Goroutines = [2]int{goroutines, n}
	if n > goroutines {
		r.res.violate(Violation{Invariant: invLeaks, Detail: fmt.Sprintf("%d goroutines before the run, %d after it", goroutines, n)})
	}
}

// killUnder SIGKILLs the processes whose working directory is dir or
// inside it (a session's tools) and returns how many.
func killUnder(dir string) int {
	pids := processesUnder(dir)
	for _, pid := range pids {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	return len(pids)
}

// processesUnder lists the processes (not this one) whose working
// directory or command line is in dir.
func processesUnder(dir string) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		var pid int
		if _, err := fmt.Sscan(e.Name(), &pid); err != nil || pid == os.Getpid() {
			continue
		}
		cwd, _ := os.Readlink(filepath.Join("/proc", e.Name(), "cwd"))
		cmd, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if strings.HasPrefix(cwd, dir+"/") || cwd == dir || strings.Contains(string(cmd), dir+"/") {
			out = append(out, pid)
		}
	}
	return out
}

func text(us []update) string {
	var b strings.Builder
	for _, u := range us {
		b.WriteString(u.text)
	}
	return b.String()
}

// around is the events either side of seq, for a violation's context.
func around(evs []storeEvent, seq int64) []string {
	var out []string
	for _, e := range evs {
		if e.Seq >= seq-3 && e.Seq <= seq+3 {
			out = append(out, fmt.Sprintf("%d %s %s", e.Seq, e.Kind, clip(string(e.Payload))))
		}
	}
	if len(out) == 0 && len(evs) > 0 {
		out = append(out, fmt.Sprintf("(the log ends at seq %d)", evs[len(evs)-1].Seq))
	}
	return out
}

func tailOf(evs []storeEvent) []string {
	if len(evs) == 0 {
		return nil
	}
	return around(evs, evs[len(evs)-1].Seq-3)
}

func clip(s string) string {
	if len(s) > 100 {
		return s[:100] + "…"
	}
	return s
}

// goroutineSummary counts a goroutine dump's goroutines by their state and
// first troupe frame, most first: where a hung daemon waits.
func goroutineSummary(dump string) string {
	counts := map[string]int{}
	var state string
	for _, l := range strings.Split(dump, "\n") {
		if i := strings.Index(l, "["); strings.HasPrefix(l, "goroutine ") && i > 0 {
			state = l[i:]
			continue
		}
		if state != "" && strings.Contains(l, "troupehq/troupe/") && !strings.HasPrefix(l, "\t") {
			counts[state+" "+l]++
			state = ""
		}
	}
	type kv struct {
		k string
		n int
	}
	var all []kv
	for k, n := range counts {
		all = append(all, kv{k, n})
	}
	slices.SortFunc(all, func(a, b kv) int { return b.n - a.n })
	var b strings.Builder
	for i, e := range all {
		if i == 15 {
			break
		}
		fmt.Fprintf(&b, "%6d %s\n", e.n, clip(e.k))
	}
	if b.Len() == 0 {
		return crashLines(dump)
	}
	return b.String()
}

// crashLines is the part of a daemon's stderr that says why it died: from
// its first panic or fatal error, 40 lines; else its last 20 lines.
func crashLines(s string) string {
	ls := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range ls {
		if strings.HasPrefix(l, "panic:") || strings.HasPrefix(l, "fatal error:") || strings.HasPrefix(l, "WARNING: DATA RACE") {
			return strings.Join(ls[i:min(len(ls), i+40)], "\n")
		}
	}
	return strings.Join(ls[max(0, len(ls)-20):], "\n")
}
