package main

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
)

// `troupe help CMD` prints the command's help on stdout; `CMD --help`
// prints the same on stderr, stdout staying the command's own.
func TestHelpPerCommand(t *testing.T) {
	r := cli(t, nil, "", "help", "run")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("help run: exit %d, stderr %q", r.code, r.stderr)
	}
	for _, want := range []string{"Usage:\n  troupe run [flags] PROMPT...", "Exit status:", "--crash-policy string", "(resume|stop)", "--home string"} {
		if !strings.Contains(r.stdout, want) {
			t.Fatalf("help run lacks %q:\n%s", want, r.stdout)
		}
	}
	d := cli(t, nil, "", "daemon", "--help")
	if d.code != 0 || d.stdout != "" {
		t.Fatalf("daemon --help: exit %d, stdout %q", d.code, d.stdout)
	}
	for _, want := range []string{"troupe daemon [flags]", "troupe daemon COMMAND [flags]", "\n  start ", "\n  stop ", "\n  status ", "\n  restart ", "--listen string", "--home string"} {
		if !strings.Contains(d.stderr, want) {
			t.Fatalf("daemon --help lacks %q:\n%s", want, d.stderr)
		}
	}
	testkit.Equal(t, cli(t, nil, "", "help", "daemon").stdout, d.stderr)
	// A subcommand's help names the flags it inherits from its parent.
	s := cli(t, nil, "", "help", "session", "prompt")
	if s.code != 0 || !strings.Contains(s.stdout, "--queue") || !strings.Contains(s.stdout, "Flags of troupe session:") || !strings.Contains(s.stdout, "--token string") {
		t.Fatalf("help session prompt: exit %d:\n%s", s.code, s.stdout)
	}
	// A group's help verb, as before the tree.
	if g := cli(t, nil, "", "session", "help"); g.code != 0 || !strings.Contains(g.stdout, "Commands:\n  attach ") {
		t.Fatalf("session help: exit %d:\n%s", g.code, g.stdout)
	}
	// An unknown topic is a usage error.
	u := cli(t, nil, "", "help", "rnu")
	if u.code != 2 || u.stdout != "" || !strings.Contains(u.stderr, "Did you mean this?") || !strings.Contains(u.stderr, "\trun\n") {
		t.Fatalf("help rnu: exit %d, stdout %q, stderr %q", u.code, u.stdout, u.stderr)
	}
}

// A mistyped command is refused with exit 2 on stderr, naming the
// commands meant, at the root and below it.
func TestUnknownCommandSuggests(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"rnu"}, []string{`troupe: unknown command "rnu" for "troupe"`, "Did you mean this?", "\trun\n"}},
		{[]string{"sesion", "list"}, []string{`unknown command "sesion"`, "\tsession\n"}},
		{[]string{"session", "lsit"}, []string{`troupe session: unknown command "lsit" for "troupe session"`, "\tlist\n"}},
		{[]string{"daemon", "strat"}, []string{`troupe daemon: unknown command "strat" for "troupe daemon"`, "\tstart\n"}},
		{[]string{"agent", "instal", "x"}, []string{`unknown command "instal"`, "\tinstall\n"}},
	} {
		r := cli(t, nil, "", c.args...)
		if r.code != 2 || r.stdout != "" {
			t.Fatalf("%v: exit %d, stdout %q", c.args, r.code, r.stdout)
		}
		for _, want := range c.want {
			if !strings.Contains(r.stderr, want) {
				t.Fatalf("%v: stderr lacks %q:\n%s", c.args, want, r.stderr)
			}
		}
	}
	// No command at all, or a group without its subcommand: the usage on
	// stderr, exit 2.
	for _, args := range [][]string{nil, {"session"}, {"agent"}} {
		r := cli(t, nil, "", args...)
		if r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, "Usage:") || !strings.Contains(r.stderr, "Commands:") {
			t.Fatalf("%v: exit %d, stdout %q, stderr %q", args, r.code, r.stdout, r.stderr)
		}
	}
}

// The stdio protocols' stdout is the protocol's: a bad flag or argument
// is told on stderr alone (json-stream also tells it in the protocol, as
// its spec asks).
func TestUsageErrorsKeepOffStdout(t *testing.T) {
	home := t.TempDir()
	for _, args := range [][]string{
		{"acp", "--bogus"}, {"mcp", "--bogus"}, {"stdio", "--bogus"}, {"rpc", "--bogus"}, {"--mode", "rpc", "--bogus"},
		{"stdio", "extra"}, {"mcp", "--max-line"}, {"run", "-home", home, "hi"},
	} {
		r := cli(t, nil, "", append(args, "--home", home)...)
		if r.code != 2 || r.stdout != "" || r.stderr == "" {
			t.Fatalf("%v: exit %d, stdout %q, stderr %q", args, r.code, r.stdout, r.stderr)
		}
	}
	// Go's flag package took one dash; pflag reads -home as shorthands, and
	// the message names the fix.
	r := cli(t, nil, "", "run", "-home", home, "hi")
	if !strings.Contains(r.stderr, "long flags take two dashes: --home") {
		t.Fatalf("stderr: %s", r.stderr)
	}
	js := cli(t, nil, "", "--json-stream", "--home", home, "extra")
	if js.code != 2 || !strings.Contains(js.stdout, `"code":"config_error"`) || !strings.Contains(js.stderr, `troupe json-stream: unexpected argument "extra"`) {
		t.Fatalf("json-stream extra: exit %d, stdout %q, stderr %q", js.code, js.stdout, js.stderr)
	}
}

// cobra's completion scripts, on stdout; the shells' requests complete
// commands, enum values and the flags of a command spawned in flag form.
func TestCompletionScripts(t *testing.T) {
	for shell, want := range map[string]string{
		"bash": "# bash completion V2 for troupe", "zsh": "#compdef troupe", "fish": "# fish completion for troupe",
	} {
		r := cli(t, nil, "", "completion", shell)
		if r.code != 0 || !strings.HasPrefix(r.stdout, want) || r.stderr != "" {
			t.Fatalf("completion %s: exit %d, stderr %q, stdout starts %q", shell, r.code, r.stderr, r.stdout[:min(len(r.stdout), 80)])
		}
	}
	if fish := cli(t, nil, "", "completion", "fish").stdout; !strings.Contains(fish, "complete -c troupe") {
		t.Fatalf("fish script registers no completion:\n%s", fish)
	}
	bash := cli(t, nil, "", "completion", "bash").stdout
	if !strings.Contains(bash, "__start_troupe") || !strings.Contains(bash, "complete -o default -F __start_troupe troupe") {
		t.Fatalf("bash script lacks its entry point:\n%s", bash)
	}
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"__complete", "r"}, []string{"rpc", "run"}},
		{[]string{"__complete", "run", "--mode", ""}, []string{"default", "auto_edit", "yolo"}},
		{[]string{"__complete", "daemon", "st"}, []string{"start", "status", "stop"}},
		{[]string{"__complete", "--mode", "rpc", "--parti"}, []string{"--partials"}},
		{[]string{"__complete", "--json-stream", "--auto"}, []string{"--auto-approve"}},
	} {
		r := cli(t, nil, "", c.args...)
		testkit.Equal(t, r.code, 0)
		for _, want := range c.want {
			if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(want) + `(\t|$)`).MatchString(r.stdout) {
				t.Fatalf("%v: no %q in:\n%s", c.args, want, r.stdout)
			}
		}
	}
}

// `troupe --mode rpc` and `troupe --json-stream`, as pi, indusagi and
// aionrs hosts spawn them, are the rpc and json-stream commands, the flag
// anywhere among the others.
func TestHostFlagForms(t *testing.T) {
	bin := testkit.BuildTroupe(t)
	env := []string{"OPENAI_BASE_URL=http://127.0.0.1:9/v1", "OPENAI_API_KEY=k"}
	model := []string{"--provider", "openai", "--model", "tiny"}
	for _, form := range [][]string{
		{"--mode", "rpc"}, {"--mode=rpc"}, {"-mode", "rpc"}, {"rpc"},
		{"--no-session", "--mode", "rpc", "--no-extensions", "--offline"},
	} {
		t.Run(strings.Join(form, " "), func(t *testing.T) {
			p := testkit.Start(t, bin, env, append(append(form, "--home", t.TempDir()), model...)...)
			fmt.Fprintln(p.Stdin, `{"id":"s","type":"get_state"}`)
			if line, ok := p.ReadLine(20 * time.Second); !ok || !strings.Contains(line, `"get_state"`) {
				t.Fatalf("no get_state answer: %q; stderr:\n%s", line, p.Stderr())
			}
			_ = p.Stdin.Close()
			testkit.Equal(t, p.Wait(t, 30*time.Second), 0)
		})
	}
	for _, form := range [][]string{
		{"--json-stream", "--provider", "openai", "--model", "tiny"},
		{"-p", "openai", "--json-stream", "-m", "tiny", "--project-dir", "."},
		{"json-stream", "--provider", "openai", "--model", "tiny", "--workspace", "."},
	} {
		t.Run(strings.Join(form, " "), func(t *testing.T) {
			p := testkit.Start(t, bin, env, append(form, "--home", t.TempDir())...)
			if line, ok := p.ReadLine(20 * time.Second); !ok || !strings.Contains(line, `"type":"ready"`) {
				t.Fatalf("no ready line: %q; stderr:\n%s", line, p.Stderr())
			}
			_ = p.Stdin.Close()
			testkit.Equal(t, p.Wait(t, 30*time.Second), 0)
		})
	}
	// A first argument naming a command wins over the flag form.
	r := cli(t, nil, "", "run", "--mode", "rpc", "hi")
	if r.code != 2 || !strings.Contains(r.stderr, `troupe run: invalid value "rpc" for flag -mode`) {
		t.Fatalf("run --mode rpc: exit %d, %q", r.code, r.stderr)
	}
	// --version and version print the same line.
	v := cli(t, nil, "", "--version")
	testkit.Equal(t, v.code, 0)
	if !strings.HasPrefix(v.stdout, "troupe ") {
		t.Fatalf("--version: %q", v.stdout)
	}
	testkit.Equal(t, cli(t, nil, "", "version").stdout, v.stdout)
}

// Every command's help fits 80 columns, whether asked with `help` or
// --help; the commands are found from the help itself.
func TestHelpFitsEightyColumns(t *testing.T) {
	seen := map[string]bool{}
	queue := [][]string{nil}
	for len(queue) > 0 {
		path := queue[0]
		queue = queue[1:]
		name := strings.Join(append([]string{"troupe"}, path...), " ")
		if seen[name] {
			continue
		}
		seen[name] = true
		help := cli(t, nil, "", append([]string{"help"}, path...)...)
		testkit.Equal(t, help.code, 0)
		flag := cli(t, nil, "", append(path, "--help")...)
		testkit.Equal(t, flag.code, 0)
		if len(path) > 0 {
			testkit.Equal(t, flag.stderr, help.stdout)
		}
		for i, line := range strings.Split(help.stdout, "\n") {
			if n := columns(line); n > 80 {
				t.Errorf("%s: line %d has %d columns: %q", name, i+1, n, line)
			}
		}
		for _, sub := range subcommands(help.stdout) {
			queue = append(queue, append(append([]string(nil), path...), sub))
		}
	}
	for _, want := range []string{"troupe session attach", "troupe daemon restart", "troupe agent run", "troupe completion bash", "troupe json-stream"} {
		if !seen[want] {
			t.Errorf("%s's help was not checked (seen %d commands)", want, len(seen))
		}
	}
}

// subcommands are the names listed under a help's "Commands:".
func subcommands(help string) []string {
	var names []string
	in := false
	for _, line := range strings.Split(help, "\n") {
		switch {
		case line == "Commands:":
			in = true
		case in && line == "":
			return names
		case in && strings.HasPrefix(line, "  ") && line[2] != ' ':
			names = append(names, strings.Fields(line)[0])
		}
	}
	return names
}

// columns is how wide line shows, tabs stopping every 8 columns.
func columns(line string) int {
	n := 0
	for _, r := range line {
		if r == '\t' {
			n += 8 - n%8
			continue
		}
		n++
	}
	return n
}

// run, the binary's entry point, in this process: each call builds its
// own tree, writes to the streams it is given and returns the status.
func TestRunEntryPoint(t *testing.T) {
	call := func(args ...string) (int, string, string) {
		var out, errb strings.Builder
		code := run(args, strings.NewReader(""), &out, &errb)
		return code, out.String(), errb.String()
	}
	code, out, errs := call("help", "events")
	if code != 0 || errs != "" || !strings.Contains(out, "troupe events SESSION [flags]") {
		t.Fatalf("help events: %d, %q, %q", code, out, errs)
	}
	code, out, errs = call("events", "--follow", "--help")
	if code != 0 || out != "" || !strings.Contains(errs, "--from int") {
		t.Fatalf("events --help: %d, %q, %q", code, out, errs)
	}
	code, out, errs = call("rnu")
	if code != 2 || out != "" || !strings.Contains(errs, "\trun\n") {
		t.Fatalf("rnu: %d, %q, %q", code, out, errs)
	}
	code, out, errs = call("events")
	testkit.Equal(t, [3]any{code, out, errs}, [3]any{2, "", "troupe events: want one SESSION\n"})
	code, out, _ = call()
	if code != 2 || out != "" {
		t.Fatalf("no command: %d, %q", code, out)
	}
}
