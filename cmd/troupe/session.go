package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/troupehq/troupe/runtime/datahome"
	"github.com/troupehq/troupe/transports/daemonclient"
	"github.com/troupehq/troupe/transports/terminal"
)

func init() {
	register(command{
		name: "session", args: "VERB [ID] [--url URL --token T]",
		summary: "use the daemon's sessions from a shell: list, new, prompt, … (troupe session help)",
		run:     runSession,
	})
}

// clientFlags say which daemon a client command talks to.
type clientFlags struct {
	home, url, token string
}

func (c *clientFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.home, "home", "", "data home whose daemon to use (default $TROUPE_HOME or ~/.troupe)")
	fs.StringVar(&c.url, "url", "", "the daemon's URL (default: $TROUPE_HOME/daemon.addr)")
	fs.StringVar(&c.token, "token", "", "the daemon's token (default: $TROUPE_TOKEN, else $TROUPE_HOME/auth-token for the home's own daemon)")
}

// options is where the daemon is: the flags, the token defaulting to
// $TROUPE_TOKEN (as for `troupe cat` and `sim`), and else to the home's
// auth-token, which Discover sends to the home's own daemon alone.
func (c clientFlags) options(home string) daemonclient.Options {
	token := c.token
	if token == "" {
		token = os.Getenv("TROUPE_TOKEN")
	}
	return daemonclient.Options{Home: home, URL: c.url, Token: token}
}

// discoverFailed reports Discover's error; a URL that is not the home's
// daemon, given with no token, is a usage error.
func discoverFailed(stderr io.Writer, what string, err error) int {
	fmt.Fprintf(stderr, "troupe %s: %s\n", what, describe(err, nil))
	if foreign := (*daemonclient.ForeignURLError)(nil); errors.As(err, &foreign) {
		return 2
	}
	return 1
}

// splitClientFlags takes --home, --url and --token out of args, wherever
// they are before a "--", leaving the verb's own flags and arguments.
func splitClientFlags(args []string) (clientFlags, []string, error) {
	var cf clientFlags
	var rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			// What follows is the verb's, flags or not (a prompt's text).
			return cf, append(rest, args[i:]...), nil
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || a == "-" {
			rest = append(rest, a)
			continue
		}
		var dst *string
		switch name {
		case "home":
			dst = &cf.home
		case "url":
			dst = &cf.url
		case "token":
			dst = &cf.token
		default:
			rest = append(rest, a)
			continue
		}
		if !hasValue {
			if i+1 >= len(args) {
				return cf, nil, fmt.Errorf("flag needs an argument: -%s", name)
			}
			i++
			value = args[i]
		}
		*dst = value
	}
	return cf, rest, nil
}

// sessionVerb is one `troupe session` subcommand.
type sessionVerb struct {
	name, args, summary string
	run                 func(ctx context.Context, c *daemonclient.Client, args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

func sessionVerbs() []sessionVerb {
	return []sessionVerb{
		{"list", "[--cwd DIR] [--json]", "the sessions: id, title, live/cold, busy, awaiting input, clients, model, updated", runSessionList},
		{"new", "[--cwd DIR] [--model P/M] [--title T]", "create a session; prints its id", runSessionNew},
		{"prompt", "ID TEXT|- [--queue]", "send a prompt and stream the answer; exit status from the stop reason", runSessionPrompt},
		{"cancel", "ID", "cancel the running turn", runSessionCancel},
		{"queue", "ID [--cancel MSG | --edit MSG TEXT] [--json]", "the pending prompts; cancel or edit one by its id", runSessionQueue},
		{"fork", "ID [--at MSG] [--cwd DIR]", "branch a session at a turn (default: the last); prints the new id", runSessionFork},
		{"export", "ID [-o FILE]", "the session's bundle (.hydra JSON)", runSessionExport},
		{"import", "FILE|- [--replace ID] [--cwd DIR]", "import a bundle (untrusted: it starts nothing); prints the new id", runSessionImport},
		{"transcript", "ID", "the conversation as markdown", runSessionTranscript},
		{"diff", "ID [--fold] [--paths a,b] [--json]", "the files the session changed", runSessionDiff},
		{"search", "TEXT [--json]", "sessions whose prompts or replies hold TEXT", runSessionSearch},
		{"kill", "ID", "stop a live session (it goes cold, loadable again)", runSessionKill},
		{"rm", "ID", "delete a session and its log", runSessionRm},
		{"title", "ID TEXT", "set a session's title", runSessionTitle},
		{"attach", "ID [--readonly] [--from-start | --new-only]", "the live view: streams the session, answers permissions by key; Ctrl-C cancels the turn, twice detaches", runSessionAttach},
	}
}

func runSession(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		sessionUsage(stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	var verb *sessionVerb
	for _, v := range sessionVerbs() {
		if v.name == args[0] {
			verb = &v
			break
		}
	}
	if verb == nil {
		fmt.Fprintf(stderr, "troupe session: unknown verb %q; see `troupe session help`\n", args[0])
		return 2
	}
	cf, rest, err := splitClientFlags(args[1:])
	if err != nil {
		fmt.Fprintf(stderr, "troupe session %s: %v\n", verb.name, err)
		return 2
	}
	home, err := datahome.Path(cf.home)
	if err != nil {
		fmt.Fprintf(stderr, "troupe session %s: %v\n", verb.name, err)
		return 1
	}
	ctx, stop := interruptContext()
	defer stop()
	if asksHelp(rest) {
		// The verb prints its flags before it would use a client.
		return verb.run(ctx, nil, rest, stdin, stdout, stderr)
	}
	c, err := daemonclient.Discover(ctx, cf.options(home))
	if err != nil {
		return discoverFailed(stderr, "session "+verb.name, err)
	}
	return verb.run(ctx, c, rest, stdin, stdout, stderr)
}

func sessionUsage(w io.Writer) {
	fmt.Fprintln(w, "Usage: troupe session VERB [args] [--home DIR | --url URL --token T]\n\nVerbs:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, v := range sessionVerbs() {
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", v.name, v.args, v.summary)
	}
	_ = tw.Flush()
	fmt.Fprintln(w, "\nThe daemon is found through $TROUPE_HOME (daemon.addr, auth-token); start it with `troupe daemon start`.")
	fmt.Fprintln(w, "The token is --token, else $TROUPE_TOKEN, else the home's auth-token, which goes only to the home's own daemon:")
	fmt.Fprintln(w, "a --url of another daemon needs --token or $TROUPE_TOKEN.")
}

// describe is err as one line naming the fix: no daemon, a refused token,
// an unknown session.
func describe(err error, c *daemonclient.Client) string {
	var nr *daemonclient.NotRunningError
	if errors.As(err, &nr) {
		return nr.Error()
	}
	if daemonclient.IsStatus(err, http.StatusUnauthorized) {
		where := "the daemon"
		if c != nil {
			where = "the daemon at " + c.URL
		}
		return where + " refused the token: pass the daemon's --token, or use its home's auth-token (--home DIR)"
	}
	var he *daemonclient.Error
	if errors.As(err, &he) && he.Status == http.StatusNotFound && strings.Contains(he.Message, "not found") {
		return he.Message + ": see `troupe session list`"
	}
	if daemonclient.IsSessionNotFound(err) {
		return err.Error() + ": see `troupe session list`"
	}
	if errors.Is(err, terminal.ErrClosed) {
		return err.Error() + "; is it still running? see `troupe daemon status`"
	}
	return err.Error()
}

// verbFlags is a verb's flag set; parse takes flags and arguments in any
// order and checks how many arguments there are.
type verbFlags struct {
	name   string
	fs     *flag.FlagSet
	stderr io.Writer
}

func newVerbFlags(name string, stderr io.Writer) *verbFlags {
	return &verbFlags{name: name, fs: newFlagSet("session "+name, stderr), stderr: stderr}
}

// parse returns the positional arguments, or an exit code when they are
// not between min and max (max < 0: any).
func (v *verbFlags) parse(args []string, min, max int, names string) ([]string, int, bool) {
	var after []string // after "--": arguments, whatever they look like
	for i, a := range args {
		if a == "--" {
			args, after = args[:i], args[i+1:]
			break
		}
	}
	pos, err := parse(v.fs, args)
	if err != nil {
		return nil, exitCode(err), false
	}
	pos = append(pos, after...)
	if len(pos) < min || (max >= 0 && len(pos) > max) {
		fmt.Fprintf(v.stderr, "troupe session %s: want %s\n", v.name, names)
		return nil, 2, false
	}
	return pos, 0, true
}

// failed prints err as one line for verb and returns 1.
func failed(stderr io.Writer, verb string, c *daemonclient.Client, err error) int {
	fmt.Fprintf(stderr, "troupe session %s: %s\n", verb, describe(err, c))
	return 1
}

// absDir is dir made absolute, the current directory when empty.
func absDir(dir string) (string, error) {
	if dir == "" {
		return os.Getwd()
	}
	return filepath.Abs(dir)
}

func asError(err error, target **daemonclient.Error) bool { return errors.As(err, target) }

// interruptContext ends at the first Ctrl-C (prompt cancels its turn, a
// request is abandoned); a second one gets the default action and ends
// the process at once.
func interruptContext() (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt)
	go func() {
		select {
		case <-sigs:
			signal.Stop(sigs)
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		cancel()
	}
}

func asksHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "-h", "-help", "--help":
			return true
		}
	}
	return false
}
