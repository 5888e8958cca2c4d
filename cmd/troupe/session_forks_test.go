package main

import (
	"strings"
	"testing"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// A fork lists with its parent and its model (the parent's, recorded when
// it forked, so it shows before and after it ran), and `session rm` of
// the parent names its forks with what to do: the daemon refuses the
// delete while forks read their conversation's start from it, or, if it
// deletes, the forks are named as kept whole.
func TestSessionForksListedAndNamedOnRm(t *testing.T) {
	home := t.TempDir()
	env, model := llmEnv(t, llmserver.Steps(llmserver.Text("one")), llmserver.Steps(llmserver.Text("two")))
	startDaemon(t, home, env, model...)
	env = append(env, "TROUPE_HOME="+home)
	parent := strings.TrimSpace(cli(t, env, "", "session", "new", "--cwd", t.TempDir()).ok(t, "new"))
	cli(t, env, "", "session", "prompt", parent, "hello").ok(t, "prompt")
	fork := strings.TrimSpace(cli(t, env, "", "session", "fork", parent).ok(t, "fork"))
	row := func() []string {
		t.Helper()
		// --all: a fork nobody prompted yet is not interactive, so the
		// default list leaves it out, as Hydra's does.
		table := cli(t, env, "", "session", "list", "--all").ok(t, "list")
		if !strings.Contains(strings.Split(table, "\n")[0], "FORK OF") {
			t.Fatalf("list has no parent column:\n%s", table)
		}
		for _, l := range strings.Split(table, "\n") {
			if f := strings.Fields(l); len(f) > 0 && f[0] == fork {
				return f
			}
		}
		t.Fatalf("fork %s not listed:\n%s", fork, table)
		return nil
	}
	// id, title, status, busy, input, clients, model, fork of, updated
	r := row()
	testkit.Equal(t, strings.Join(r[6:8], " "), "openai/tiny "+parent)
	cli(t, env, "", "session", "prompt", fork, "more").ok(t, "prompt the fork")
	r = row()
	testkit.Equal(t, strings.Join(r[6:8], " "), "openai/tiny "+parent)

	rm := cli(t, env, "", "session", "rm", parent)
	switch rm.code {
	case 1:
		for _, want := range []string{parent + " was not removed: its forks read the start of their conversation from it: " + fork + ` ("hello")`,
			"Remove each fork first (`troupe session rm FORK`), then " + parent} {
			if !strings.Contains(rm.stderr, want) {
				t.Fatalf("rm of a parent: stderr lacks %q:\n%s", want, rm.stderr)
			}
		}
	case 0:
		if !strings.Contains(rm.stderr, "its forks are kept whole, with the conversation they inherited: "+fork) {
			t.Fatalf("rm of a parent does not name the kept fork:\n%s", rm.stderr)
		}
	default:
		t.Fatalf("rm of a parent: exit %d %q", rm.code, rm.stderr)
	}
	// The fork itself goes without a word about forks.
	rmFork := cli(t, env, "", "session", "rm", fork)
	testkit.Equal(t, rmFork.ok(t, "rm the fork"), fork+" removed\n")
	testkit.Equal(t, rmFork.stderr, "")
}
