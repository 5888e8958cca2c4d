package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/troupehq/troupe/runtime/datahome"
	"github.com/troupehq/troupe/transports/daemonclient"
	"github.com/troupehq/troupe/transports/terminal"
)

// clientFlags say which daemon a client command talks to.
type clientFlags struct {
	home, url, token string
}

func (c *clientFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&c.home, "home", "", "data home whose daemon to use (default $TROUPE_HOME or ~/.troupe)")
	c.registerRemote(fs)
}

// registerRemote registers --url and --token, for a command whose --home
// is registered with the common flags (daemon status).
func (c *clientFlags) registerRemote(fs *pflag.FlagSet) {
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

// sessionCmd is `troupe session`: its verbs share the client flags,
// persistent over the subtree, and find the daemon before they run.
type sessionCmd struct {
	a  *app
	cf clientFlags
}

// sessionVerbHelp is each verb's usage and summary.
var sessionVerbHelp = map[string][2]string{
	"list":       {"list", "the sessions: id, title, live/cold, busy, waiting, model, updated"},
	"new":        {"new", "create a session; prints its id"},
	"prompt":     {"prompt ID TEXT...|-", "send a prompt and stream the answer; exit status from the stop reason"},
	"cancel":     {"cancel ID", "cancel the running turn"},
	"queue":      {"queue ID [TEXT...]", "the pending prompts; cancel or edit one by its id"},
	"fork":       {"fork ID", "branch a session at a turn (default: the last); prints the new id"},
	"export":     {"export ID", "the session's bundle (.hydra JSON)"},
	"import":     {"import FILE|-", "import a bundle (untrusted: it starts nothing); prints the new id"},
	"transcript": {"transcript ID", "the conversation as markdown"},
	"diff":       {"diff ID", "the files the session changed"},
	"search":     {"search TEXT...", "sessions whose prompts or replies hold TEXT"},
	"kill":       {"kill ID", "stop a live session (it goes cold, loadable again)"},
	"rm":         {"rm ID", "delete a session and its log"},
	"title":      {"title ID TEXT...", "set a session's title"},
	"attach":     {"attach ID", "the live view: stream the session, answer permissions by key"},
}

func newSessionCmd(a *app) *cobra.Command {
	s := &sessionCmd{a: a}
	c := a.group(&cobra.Command{
		Use:   "session",
		Short: "use the daemon's sessions from a shell: list, new, prompt, …",
		Annotations: map[string]string{footerKey: "The daemon is found through $TROUPE_HOME (daemon.addr, auth-token); " +
			"start it with `troupe daemon start`. The token is --token, else $TROUPE_TOKEN, " +
			"else the home's auth-token, which goes only to the home's own daemon: a --url " +
			"of another daemon needs --token or $TROUPE_TOKEN."},
	})
	s.cf.register(c.PersistentFlags())
	for _, verb := range []func(*sessionCmd) *cobra.Command{
		newSessionListCmd, newSessionNewCmd, newSessionPromptCmd, newSessionCancelCmd, newSessionQueueCmd,
		newSessionForkCmd, newSessionExportCmd, newSessionImportCmd, newSessionTranscriptCmd, newSessionDiffCmd,
		newSessionSearchCmd, newSessionKillCmd, newSessionRmCmd, newSessionTitleCmd, newSessionAttachCmd,
	} {
		c.AddCommand(verb(s))
	}
	return c
}

// verb is the command of the verb name; s.run gives it its body.
func (s *sessionCmd) verb(name string) *cobra.Command {
	h := sessionVerbHelp[name]
	return &cobra.Command{Use: h[0], Short: h[1]}
}

// run sets the verb's body, which gets a client of the daemon the client
// flags name, and a context a first Ctrl-C ends.
func (s *sessionCmd) run(verb *cobra.Command, body func(ctx context.Context, c *daemonclient.Client, pos []string, stdin io.Reader, stdout, stderr io.Writer) int) *cobra.Command {
	a, name := s.a, verb.Name()
	verb.RunE = a.action(func(pos []string) int {
		home, err := datahome.Path(s.cf.home)
		if err != nil {
			fmt.Fprintf(a.stderr, "troupe session %s: %v\n", name, err)
			return 1
		}
		ctx, stop := interruptContext()
		defer stop()
		c, err := daemonclient.Discover(ctx, s.cf.options(home))
		if err != nil {
			return discoverFailed(a.stderr, "session "+name, err)
		}
		return body(ctx, c, pos, a.stdin, a.stdout, a.stderr)
	})
	return verb
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
