// Command troupe hosts LLM coding-agent sessions as actors. See `troupe help`.
//
// It owns the command line: flags, what is printed, and exit codes; it
// assembles the runtime from the packages below it and keeps no session
// logic of its own.
package main

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"text/tabwriter"

	"github.com/troupehq/troupe/runtime/logging"
)

// command is one subcommand: a name, a one-line summary and its entry point.
// match, when set, also recognises the command in flag form (existing
// hosts start `troupe --mode rpc ...`): it returns the args left for run.
type command struct {
	name    string
	args    string
	summary string
	run     func(args []string, stdin io.Reader, stdout, stderr io.Writer) int
	match   func(args []string) (rest []string, ok bool)
}

// registry holds every command; each registers itself from its own file.
var registry []command

func register(c command) { registry = append(registry, c) }

func commands() []command {
	out := append([]command(nil), registry...)
	slices.SortStableFunc(out, func(a, b command) int { return cmp.Compare(order(a.name), order(b.name)) })
	return out
}

// order keeps help's list stable: everyday commands first.
func order(name string) string {
	switch name {
	case "version":
		return "y"
	case "help":
		return "z"
	}
	return name
}

func init() {
	register(command{name: "events", args: "SESSION [--from SEQ] [--follow]", summary: "print a session's events from the store as NDJSON", run: runEvents})
	register(command{name: "run", args: "[flags] PROMPT", summary: "run one prompt to the end and print the transcript (--json: events)", run: runRun})
	register(command{name: "append", args: "SESSION [--title T] [--cwd DIR] [--max-line N]", summary: "append canonical events read as NDJSON from stdin, acknowledging each once durable", run: runAppend})
	register(command{name: "version", summary: "print the version", run: runVersion})
	register(command{name: "help", summary: "show this help", run: runHelp})
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	switch args[0] {
	case "-h", "--help", "-help":
		return runHelp(nil, stdin, stdout, stderr)
	case "--version", "-version":
		return runVersion(nil, stdin, stdout, stderr)
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(args[1:], stdin, stdout, stderr)
		}
	}
	for _, c := range commands() {
		if c.match == nil {
			continue
		}
		if rest, ok := c.match(args); ok {
			return c.run(rest, stdin, stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "troupe: unknown command %q\n\n", args[0])
	usage(stderr)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "troupe hosts LLM coding-agent sessions as supervised, event-sourced actors.")
	fmt.Fprintln(w, "\nUsage:\n  troupe COMMAND [flags]\n\nCommands:")
	// Columns sized by the longest entry, whatever commands register.
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, c := range commands() {
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", c.name, c.args, c.summary)
	}
	_ = tw.Flush()
	fmt.Fprintln(w, "\nCommon flags: --home DIR (default $TROUPE_HOME or ~/.troupe), --log-level LEVEL (or $TROUPE_LOG), --log-format text|json.")
	fmt.Fprintln(w, "Logs go to stderr; stdout carries only command output.")
}

func runHelp(_ []string, _ io.Reader, stdout, _ io.Writer) int {
	usage(stdout)
	return 0
}

// commonFlags are accepted by every command that touches the home.
type commonFlags struct {
	home      string
	logLevel  string
	logFormat string
}

func (c *commonFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.home, "home", "", "data home (default $TROUPE_HOME or ~/.troupe)")
	enumVar(fs, &c.logLevel, "log-level", "", logLevels, "log level; default $TROUPE_LOG, else warn")
	enumVar(fs, &c.logFormat, "log-format", "text", logFormats, "log format")
}

// logger builds the command's logger from the flags.
func (c *commonFlags) logger() (*slog.Logger, error) {
	return logging.New(logging.Options{Level: c.logLevel, Format: c.logFormat})
}

// parse parses flags and positional args in any order, since people type
// `troupe events --follow SESSION` as often as the reverse.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return positional, nil
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
}

func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("troupe "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

// exitCode maps a flag parse error to the conventional codes.
func exitCode(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	return 2
}
