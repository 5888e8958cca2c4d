package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/troupehq/troupe/runtime/logging"
)

// app is one invocation: its streams, and the exit status its command
// chose. Command bodies return their status (each command documents its
// own); cobra's errors are the usage errors, exit 2.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	code           int
	// args are the command line as given, for flagError.
	args []string
	// helpFunc is cobra's help, which showHelp points at a stream.
	helpFunc func(*cobra.Command, []string)
}

// action adapts a command body, which gets the positional arguments and
// returns the exit status, to cobra.
func (a *app) action(body func(pos []string) int) func(*cobra.Command, []string) error {
	return func(_ *cobra.Command, pos []string) error {
		a.code = body(pos)
		return nil
	}
}

// newRoot is the command tree. Cobra prints nothing by itself (errors
// and usage are silenced): in the stdio protocols stdout is the
// protocol's, so every error goes to stderr through usageError.
func newRoot(a *app) *cobra.Command {
	root := &cobra.Command{
		Use:     "troupe",
		Short:   "troupe hosts LLM coding-agent sessions as supervised, event-sourced actors.",
		Version: currentVersion(),
		// No Args: cobra then refuses an unknown command, naming the
		// nearest.
		SilenceErrors: true,
		SilenceUsage:  true,
		Annotations: map[string]string{footerKey: "Common flags: --home DIR (default $TROUPE_HOME or ~/.troupe), " +
			"--log-level LEVEL (or $TROUPE_LOG), --log-format text|json. " +
			"Logs go to stderr; stdout carries only command output."},
		RunE: func(c *cobra.Command, _ []string) error {
			// No command: the usage, as an error.
			a.showHelp(c, a.stderr)
			a.code = 2
			return nil
		},
	}
	root.SetIn(a.stdin)
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	root.SetVersionTemplate(versionLine())
	root.SetFlagErrorFunc(a.flagError)
	root.AddCommand(
		newACPCmd(a), newAgentCmd(a), newAppendCmd(a), newAuthCmd(a), newCatCmd(a),
		newDaemonCmd(a), newDoctorCmd(a), newEventsCmd(a), newInitCmd(a), newJSONStreamCmd(a), newMCPCmd(a), newRPCCmd(a),
		newRunCmd(a), newSessionCmd(a), newSimCmd(a), newStdioCmd(a), newVersionCmd(a),
	)
	setupHelp(a, root)
	completeEnums(root)
	return root
}

// hostForms rewrites the flag forms hosts spawn into the commands they
// stand for: `troupe --mode rpc ...` (pi and indusagi hosts) is `troupe
// rpc ...`, `troupe --json-stream ...` (aionrs hosts) is `troupe
// json-stream ...`, the flag anywhere among the others. A first argument
// naming a command wins (`troupe run --mode yolo`). Shell completion
// (`troupe __complete ARGS`) sees the same rewrite, so it completes the
// command's flags. Go's flag package, which troupe used before, took one
// dash as well as two, and `-help`, `-version` and `-mode rpc` were
// matched as such here: those keep working (no host is known to spawn
// another single-dash long flag; pflag reads those as shorthands and
// flagError names the fix).
func hostForms(root *cobra.Command, args []string) []string {
	if len(args) == 0 {
		return args
	}
	switch args[0] {
	case cobra.ShellCompRequestCmd, cobra.ShellCompNoDescRequestCmd:
		return append([]string{args[0]}, hostForms(root, args[1:])...)
	case "-help":
		return append([]string{"--help"}, args[1:]...)
	case "-version":
		return append([]string{"--version"}, args[1:]...)
	}
	for _, c := range root.Commands() {
		if c.Name() == args[0] || c.HasAlias(args[0]) {
			return args
		}
	}
	if rest, ok := matchJSONStreamFlag("--json-stream")(args); ok {
		return append([]string{"json-stream"}, rest...)
	}
	if rest, ok := matchModeRPC(args); ok {
		return append([]string{"rpc"}, rest...)
	}
	return args
}

// usageError reports what cobra refused, on stderr, and is exit 2. An
// argument count the command checks is one line (argsError); an unknown
// command or flag also names the help.
func (a *app) usageError(c *cobra.Command, err error) int {
	fmt.Fprintf(a.stderr, "%s: %s\n", c.CommandPath(), strings.TrimRight(err.Error(), "\n"))
	var ae argsError
	if errors.As(err, &ae) {
		return 2
	}
	if c.Name() == "help" && c.HasParent() {
		c = c.Parent() // `troupe help nosuch`: the commands are the parent's
	}
	fmt.Fprintf(a.stderr, "Run '%s --help' for usage.\n", c.CommandPath())
	return 2
}

// argsError is a command's arguments refused: "want ..." in one line.
type argsError string

func (e argsError) Error() string { return string(e) }

// wantArgs checks a command has between min and max arguments (max < 0:
// any); names says what they are ("a session id").
func wantArgs(min, max int, names string) cobra.PositionalArgs {
	return func(_ *cobra.Command, pos []string) error {
		if len(pos) < min || (max >= 0 && len(pos) > max) {
			return argsError("want " + names)
		}
		return nil
	}
}

// noArgs refuses any argument, naming the first.
func noArgs(_ *cobra.Command, pos []string) error {
	if len(pos) > 0 {
		return argsError(fmt.Sprintf("unexpected argument %q", pos[0]))
	}
	return nil
}

// flagError keeps the message of a refused value in the shape Go's flag
// package gave it (`invalid value "x" for flag -mode: want a or b`),
// which scripts and tests match, and names the fix of a long flag given
// one dash, which pflag reads as shorthands.
func (a *app) flagError(c *cobra.Command, err error) error {
	var invalid *pflag.InvalidValueError
	if errors.As(err, &invalid) {
		return fmt.Errorf("invalid value %q for flag -%s: %w", invalid.GetValue(), invalid.GetFlag().Name, errors.Unwrap(invalid))
	}
	var missing *pflag.NotExistError
	if !errors.As(err, &missing) || missing.GetSpecifiedShortnames() == "" {
		return err
	}
	for _, arg := range a.args {
		if arg == "--" {
			break
		}
		name, _, _ := strings.Cut(strings.TrimPrefix(arg, "-"), "=")
		if !strings.HasPrefix(arg, "--") && len(name) > 1 && c.Flags().Lookup(name) != nil {
			return fmt.Errorf("%w (long flags take two dashes: --%s)", err, name)
		}
	}
	return err
}

// group is a command that only holds others (agent, session): without a
// subcommand it is a usage error, with an unknown one too, naming the
// nearest.
func (a *app) group(c *cobra.Command) *cobra.Command {
	if c.Annotations == nil {
		c.Annotations = map[string]string{}
	}
	c.Annotations[groupKey] = "yes"
	c.Args = cobra.ArbitraryArgs
	c.RunE = func(c *cobra.Command, pos []string) error {
		if len(pos) == 0 {
			a.showHelp(c, a.stderr)
			a.code = 2
			return nil
		}
		if pos[0] == "help" {
			// `troupe session help [VERB]`, as it was before the tree.
			return a.helpCommand(c, pos[1:])
		}
		return unknownCommand(c, pos[0])
	}
	return c
}

// unknownCommand is cobra's refusal of an unknown command, with its
// suggestions, for a command below the root (cobra checks only the
// root's).
func unknownCommand(c *cobra.Command, name string) error {
	if c.SuggestionsMinimumDistance <= 0 {
		c.SuggestionsMinimumDistance = 2 // cobra's default, set only where it checks
	}
	msg := fmt.Sprintf("unknown command %q for %q", name, c.CommandPath())
	if s := c.SuggestionsFor(name); len(s) > 0 {
		msg += "\n\nDid you mean this?\n\t" + strings.Join(s, "\n\t")
	}
	return errors.New(msg)
}

// completeEnums lets the shells complete every enum flag with its values.
func completeEnums(root *cobra.Command) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, fs := range []*pflag.FlagSet{c.Flags(), c.PersistentFlags()} {
			fs.VisitAll(func(f *pflag.Flag) {
				if e, ok := f.Value.(*enum); ok {
					_ = c.RegisterFlagCompletionFunc(f.Name, cobra.FixedCompletions(e.allowed, cobra.ShellCompDirectiveNoFileComp))
				}
			})
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// commonFlags are accepted by every command that touches the home (what
// Nomad calls a command's Meta): declared here once, registered by the
// commands that embed them, persistent over a subtree (agent, daemon).
type commonFlags struct {
	home      string
	logLevel  string
	logFormat string
}

func (c *commonFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&c.home, "home", "", "data home (default $TROUPE_HOME or ~/.troupe)")
	enumVar(fs, &c.logLevel, "log-level", "", logLevels, "log level; default $TROUPE_LOG, else warn")
	enumVar(fs, &c.logFormat, "log-format", "text", logFormats, "log format")
}

// logger builds the command's logger from the flags.
func (c *commonFlags) logger() (*slog.Logger, error) {
	return logging.New(logging.Options{Level: c.logLevel, Format: c.logFormat})
}
