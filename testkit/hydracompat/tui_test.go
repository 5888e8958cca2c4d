//go:build hydracompat

package hydracompat

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// TUI is `hydra-acp tui` in a detached tmux session of 200x50 on a
// private tmux server.
type TUI struct {
	h      *H
	socket string
	last   string
	notes  []string // passing messages seen while waiting (see note)
}

// notice is a line the TUI shows for a moment in its bar: a refusal or an
// error a row's reason should quote even after it went away.
var notice = regexp.MustCompile(`(?i)[^─│]*(no [a-z ]*advertised|not advertised|error|failed|cannot|unknown)[^─│]*`)

// note keeps the notices on screen s.
func (u *TUI) note(s string) {
	for _, m := range notice.FindAllString(s, -1) {
		m = strings.TrimSpace(m)
		if !contains(u.notes, m) && len(u.notes) < 5 {
			u.notes = append(u.notes, m)
		}
	}
}

func (h *H) StartTUI(args ...string) *TUI {
	h.t.Helper()
	u := &TUI{h: h, socket: fmt.Sprintf("hydracompat-%d", FreePort(h.t))}
	h.t.Cleanup(u.stop)
	u.start(args...)
	return u
}

func (u *TUI) start(args ...string) {
	var env []string
	for _, kv := range u.h.env {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "HYDRA_ACP_HOME", "HOME", "PATH", "NO_COLOR", "FORCE_COLOR":
			env = append(env, shellQuote(kv))
		}
	}
	cmdline := "cd " + shellQuote(u.h.D.Work) + " && env " + strings.Join(env, " ") + " TERM=xterm-256color " +
		shellQuote(u.h.node) + " " + shellQuote(u.h.cli) + " tui"
	for _, a := range args {
		cmdline += " " + shellQuote(a)
	}
	cmdline += "; echo; echo \"[tui exited $?]\"; sleep 600"
	if exec.Command("tmux", "-L", u.socket, "has-session", "-t", "main").Run() == nil {
		u.tmux("respawn-pane", "-k", "-t", "main", cmdline)
		return
	}
	u.tmux("-f", "/dev/null", "new-session", "-d", "-x", "200", "-y", "50", "-s", "main", cmdline)
}

// stop ends the tmux server and waits for the TUI's processes to end, so
// that none writes into a home being removed.
func (u *TUI) stop() {
	pane := strings.TrimSpace(u.tmux("display-message", "-p", "-t", "main", "#{pane_pid}"))
	socket := strings.TrimSpace(u.tmux("display-message", "-p", "-t", "main", "#{socket_path}"))
	procs := descendants(pane)
	exec.Command("tmux", "-L", u.socket, "kill-server").Run() //nolint:errcheck // may be gone
	if socket != "" {
		os.Remove(socket) //nolint:errcheck // tmux may have removed it
	}
	deadline := time.Now().Add(5 * time.Second)
	for _, pid := range procs {
		for alive(pid) && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		if p, err := os.FindProcess(pid); err == nil && alive(pid) {
			p.Kill() //nolint:errcheck // gone meanwhile
		}
	}
}

// descendants are the pids under pid (its children, theirs ...).
func descendants(pid string) []int {
	parent := map[int]int{}
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, f := range stats {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so after ")".
		rest := string(b[strings.LastIndexByte(string(b), ')')+1:])
		fields := strings.Fields(rest)
		if len(fields) < 2 {
			continue
		}
		me, _ := strconv.Atoi(filepath.Base(filepath.Dir(f)))
		pp, _ := strconv.Atoi(fields[1])
		parent[me] = pp
	}
	root, err := strconv.Atoi(pid)
	if err != nil {
		return nil
	}
	var out []int
	for p := range parent {
		for q := p; q > 1; q = parent[q] {
			if q == root {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

func alive(pid int) bool {
	_, err := os.Stat("/proc/" + strconv.Itoa(pid))
	return err == nil
}

// Restart runs the TUI again in the same pane.
func (u *TUI) Restart(args ...string) { u.start(args...) }

func (u *TUI) tmux(args ...string) string {
	out, err := exec.Command("tmux", append([]string{"-L", u.socket}, args...)...).CombinedOutput()
	if err != nil {
		u.h.t.Logf("tmux %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// Type types text literally.
func (u *TUI) Type(text string) { u.tmux("send-keys", "-t", "main", "-l", text) }

// Keys sends tmux key names (Enter, C-p, BTab, Escape, Down ...).
func (u *TUI) Keys(keys ...string) { u.tmux(append([]string{"send-keys", "-t", "main"}, keys...)...) }

// Screen is the pane's text now.
func (u *TUI) Screen() string {
	u.last = u.tmux("capture-pane", "-p", "-t", "main")
	return u.last
}

// WaitFor waits until the screen contains every text; it returns whether
// it did.
func (u *TUI) WaitFor(timeout time.Duration, texts ...string) bool {
	deadline := time.Now().Add(timeout)
	for {
		s := u.Screen()
		u.note(s)
		all := true
		for _, t := range texts {
			if !strings.Contains(s, t) {
				all = false
				break
			}
		}
		if all {
			return true
		}
		if time.Now().After(deadline) {
			u.h.t.Logf("screen while waiting for %q:\n%s", texts, s)
			return false
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// boxRun is a run of box-drawing characters (frames, rules).
var boxRun = regexp.MustCompile(`[─│╭╮╰╯┌┐└┘━┃]+`)

// Shows is a one-line account of the screen for a row's reason: the
// lines that look like an error, else the last non-empty lines; frames
// left out.
func (u *TUI) Shows() string {
	lines := strings.Split(boxRun.ReplaceAllString(u.last, " "), "\n")
	var bad, rest []string
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" {
			continue
		}
		lt := strings.ToLower(t)
		if strings.Contains(lt, "error") || strings.Contains(lt, "fail") || strings.Contains(lt, "not ") || strings.Contains(lt, "no ") || strings.Contains(lt, "exited") {
			bad = append(bad, t)
		}
		rest = append(rest, t)
	}
	for _, n := range u.notes {
		if !contains(bad, n) {
			bad = append(bad, n)
		}
	}
	if len(bad) > 0 {
		return short(strings.Join(bad, " | "))
	}
	if len(rest) > 3 {
		rest = rest[len(rest)-3:]
	}
	return short(strings.Join(rest, " | "))
}

// Answer is what the screen shows after the line holding marker (a
// prompt typed) and before the composer's Ready line, on one line.
func (u *TUI) Answer(marker string) string {
	lines := strings.Split(boxRun.ReplaceAllString(u.last, " "), "\n")
	var out []string
	in := false
	for _, l := range lines {
		t := strings.TrimSpace(l)
		switch {
		case strings.Contains(t, marker):
			in, out = true, nil
		case strings.HasPrefix(t, "Ready ·"):
			in = false
		case in && t != "" && !strings.HasPrefix(t, "⚙ thought"):
			out = append(out, t)
		}
	}
	return short(strings.Join(out, " | "))
}

// SessionIDs are the session ids on screen, waiting a moment for one
// (the Ready line names the session once attached).
func (u *TUI) SessionIDs() []string {
	deadline := time.Now().Add(10 * time.Second)
	for {
		if got := ids(u.Screen()); len(got) > 0 || time.Now().After(deadline) {
			return got
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// Count is how many times text is on the screen.
func (u *TUI) Count(text string) int { return strings.Count(u.Screen(), text) }

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
