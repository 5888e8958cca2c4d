package main

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/troupehq/troupe/actors"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/transports/rpc"
)

// matchModeRPC recognises `--mode rpc` or `--mode=rpc` anywhere in the
// args, as indusagi hosts start the agent, and removes it.
func matchModeRPC(args []string) ([]string, bool) {
	for i, a := range args {
		switch {
		case a == "--mode" || a == "-mode":
			if i+1 < len(args) && args[i+1] == "rpc" {
				return append(append([]string(nil), args[:i]...), args[i+2:]...), true
			}
		case a == "--mode=rpc" || a == "-mode=rpc":
			return append(append([]string(nil), args[:i]...), args[i+1:]...), true
		}
	}
	return nil, false
}

type rpcFlags struct {
	common              commonFlags
	models              modelFlags
	sessionDir, session string
	approval, cwd       string
	maxLine             int
	noSession           bool
	partials            rpc.Partials
	ignored             [3]bool
	noSkills            bool
	noTemplates         bool
}

func newRPCCmd(a *app) *cobra.Command {
	var f rpcFlags
	partials := "full"
	c := &cobra.Command{
		Use:   "rpc",
		Short: "the indusagi RPC protocol on stdin/stdout (also: --mode rpc)",
		Long: "Speak the indusagi RPC protocol on stdin/stdout: one JSON command a line, " +
			"responses and events on stdout. Hosts spawn it as `troupe --mode rpc`, " +
			"which is the same command.",
		Args: cobra.ArbitraryArgs, // ignored, as they always were: hosts spawn it as pi
		RunE: a.action(func([]string) int {
			f.partials, _ = rpc.ParsePartials(partials) // enumVar admits only its values
			return runRPC(f, a.stdin, a.stdout, a.stderr)
		}),
	}
	fs := c.Flags()
	f.common.register(fs)
	f.models.register(fs)
	fs.StringVar(&f.sessionDir, "session-dir", "", "keep sessions in DIR/troupe.db instead of the home's store")
	fs.StringVar(&f.session, "session", "", "continue this session")
	enumVar(fs, &f.approval, "approval-mode", event.ApprovalYolo, approvalModes, "approval mode; the protocol cannot ask, so calls needing approval are denied")
	fs.StringVar(&f.cwd, "cwd", "", "working directory of new sessions (default: current)")
	fs.IntVar(&f.maxLine, "max-line", 0, "largest accepted command line in bytes (default 16 MiB)")
	fs.BoolVar(&f.noSession, "no-session", false, "keep nothing after exit")
	enumVar(fs, &partials, "partials", partials, []string{"full", "skeleton"}, "message_update's partial message: with the text so far, or without text for clients that read only the deltas")
	fs.BoolVar(&f.noSkills, "no-skills", false, "leave /skill:NAME messages as typed")
	fs.BoolVar(&f.noTemplates, "no-prompt-templates", false, "leave /NAME messages as typed")
	// pi's switches for features troupe does not have; accepted so that
	// existing launch lines work.
	for i, name := range []string{"no-extensions", "no-context-files", "offline"} {
		fs.BoolVar(&f.ignored[i], name, false, "accepted for compatibility; no effect")
	}
	return c
}

func runRPC(f rpcFlags, stdin io.Reader, stdout, stderr io.Writer) int {
	fail := func(code int, err error) int {
		fmt.Fprintf(stderr, "troupe rpc: %v\n", err)
		return code
	}
	storeHome := f.sessionDir
	if f.noSession {
		var err error
		if storeHome, err = os.MkdirTemp("", "troupe-rpc-"); err != nil {
			return fail(1, err)
		}
		defer os.RemoveAll(storeHome)
	}
	h, err := startHost(f.common, hostSetup{Command: "troupe --mode rpc", Check: true, Faults: true, StoreHome: storeHome,
		Engine: f.models.engine(f.approval, true)})
	if err != nil {
		return fail(exitCodeOf(err), err)
	}
	defer h.stop()
	cwd := f.cwd
	if cwd == "" {
		cwd, _ = os.Getwd()
	}
	d, err := serveTransport(h.ctx, h.rt, rpc.Props(rpc.Config{
		In: stdin, Out: stdout, MaxLine: f.maxLine,
		Sessions: h.rt.Sessions, Models: h.eng.Models(),
		Thinking: f.models.thinking, Cwd: cwd,
		SessionID: f.session, NoSession: f.noSession, Partials: f.partials, Log: h.log,
		Home: h.home, NoPromptTemplates: f.noTemplates, NoSkills: f.noSkills,
		SessionFileDir: sessionFileDir(cmp.Or(f.sessionDir, h.home)),
	}), "rpc")
	if d.Code == rpc.ExitTerminated && actors.ShutdownSignal(h.ctx) == syscall.SIGINT {
		d.Code = exitCancelled // Ctrl-C: 130, as pi and shells say it
	}
	return exitStatus(d, err, func(err error) { fmt.Fprintf(stderr, "troupe rpc: %v\n", err) })
}

// sessionFileDir is where the RPC session files of the store in storeHome
// are kept, absolute: switch_session tells its own files by their folder.
func sessionFileDir(storeHome string) string {
	if abs, err := filepath.Abs(storeHome); err == nil {
		storeHome = abs
	}
	return filepath.Join(storeHome, rpc.SessionFileFolder)
}
