package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/troupehq/troupe/actors/sessions/engine"
	"github.com/troupehq/troupe/runtime/datahome"
	"github.com/troupehq/troupe/runtime/pidfile"
	"github.com/troupehq/troupe/transports/daemon"
	"github.com/troupehq/troupe/transports/daemonclient"
)

// The daemon's files in its home besides daemon.addr and auth-token.
const (
	daemonPIDFile = daemon.PIDFile
	daemonLogFile = "daemon.log"
)

// startFlags are `troupe daemon start`'s: the daemon's own, passed on to
// the background process, and the start's.
type startFlags struct {
	daemon     daemonFlags
	foreground bool
	wait       time.Duration
	fs         *pflag.FlagSet
	notes      []string // said on stderr once the daemon answers (restart's)
}

// newStartFlags registers start's flags (restart's too) on c.
func newStartFlags(c *cobra.Command, common *commonFlags) *startFlags {
	f := &startFlags{daemon: daemonFlags{common: common}, fs: c.Flags()}
	f.daemon.register(f.fs)
	f.fs.BoolVar(&f.foreground, "foreground", false, "run in the foreground, as `troupe daemon` does")
	f.fs.DurationVar(&f.wait, "wait", 30*time.Second, "how long to wait for /v1/health to answer")
	return f
}

func newDaemonStartCmd(a *app, common *commonFlags) *cobra.Command {
	c := &cobra.Command{
		Use:   "start",
		Short: "start the daemon in the background, once it answers",
		Args:  noArgs,
	}
	f := newStartFlags(c, common)
	c.RunE = a.action(func([]string) int { return f.start(a.stdout, a.stderr) })
	return c
}

// childArgs are the flags given, for the background `troupe daemon`: the
// home made absolute (it starts in the same directory, but a home is
// better pinned), the log file in the home unless one was given.
func (f *startFlags) childArgs(home string) []string {
	args := []string{"daemon", "--home", home}
	hasLog := false
	f.fs.Visit(func(fl *pflag.Flag) {
		switch fl.Name {
		case "foreground", "wait", "home", "timeout":
			return
		case "log-file":
			hasLog = true
		}
		args = append(args, "--"+fl.Name+"="+fl.Value.String())
	})
	if !hasLog {
		args = append(args, "--log-file", filepath.Join(home, daemonLogFile))
	}
	return args
}

func (f *startFlags) start(stdout, stderr io.Writer) int {
	fail := func(code int, format string, a ...any) int {
		fmt.Fprintf(stderr, "troupe daemon start: "+format+"\n", a...)
		return code
	}
	if f.foreground {
		return runDaemonForeground(f.daemon, stderr)
	}
	home, err := datahome.Resolve(f.daemon.common.home, nil)
	if err != nil {
		return fail(1, "%v", err)
	}
	ctx := context.Background()
	if c, err := daemonclient.Discover(ctx, daemonclient.Options{Home: home}); err == nil {
		if h, err := c.Health(ctx); err == nil {
			fmt.Fprintf(stdout, "troupe daemon: already running on %s (pid %d)\n", c.URL, h.PID)
			return 0
		}
	}
	if pid, held, _ := pidfile.Read(filepath.Join(home, daemonPIDFile)); held {
		// A daemon takes the file before it answers: one another start
		// just launched is waited for as our own would be.
		if url, err := awaitDaemon(ctx, home, pid, f.wait); err == nil {
			fmt.Fprintf(stdout, "troupe daemon: already running on %s (pid %d)\n", url, pid)
			return 0
		}
		return fail(1, "a daemon (pid %d) holds %s but does not answer; see %s", pid,
			filepath.Join(home, daemonPIDFile), filepath.Join(home, daemonLogFile))
	}
	exe, err := os.Executable()
	if err != nil {
		return fail(1, "find the troupe binary: %v", err)
	}
	logPath := filepath.Join(home, daemonLogFile)
	if f.daemon.logFile != "" {
		logPath = f.daemon.logFile
	}
	// Until the daemon opens its log itself, what it prints (a bad flag)
	// goes to the same file.
	logf, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fail(1, "open the log: %v", err)
	}
	defer logf.Close()
	before, _ := logf.Seek(0, io.SeekEnd)
	cmd := exec.Command(exe, f.childArgs(home)...)
	cmd.Stdout, cmd.Stderr = logf, logf // stdin is /dev/null
	// Its own session and process group: no terminal, no signal from the
	// shell's job control, and it outlives this command.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fail(1, "start the daemon: %v", err)
	}
	pid := cmd.Process.Pid
	url, err := awaitDaemon(ctx, home, pid, f.wait)
	if err != nil {
		if !errors.Is(err, errExited) {
			_ = syscall.Kill(-pid, syscall.SIGKILL)
			_, _ = cmd.Process.Wait()
		}
		// A start at the same time may have won the home: ours found its
		// pid file locked and left; wait for the winner instead.
		if other, held, _ := pidfile.Read(filepath.Join(home, daemonPIDFile)); errors.Is(err, errExited) && held && other != pid && other != 0 {
			if url, err := awaitDaemon(ctx, home, other, f.wait); err == nil {
				fmt.Fprintf(stdout, "troupe daemon: already running on %s (pid %d)\n", url, other)
				return 0
			}
		}
		return fail(1, "%v; its log %s says:\n%s", err, logPath, logTail(logPath, before))
	}
	// Not waited for: it lives on after this command, reparented.
	_ = cmd.Process.Release()
	fmt.Fprintf(stdout, "troupe daemon: listening on %s (pid %d)\n", url, pid)
	for _, n := range f.notes {
		fmt.Fprintf(stderr, "troupe daemon: note: %s\n", n)
	}
	warnNoModel(stderr, home, f.daemon)
	return 0
}

// warnNoModel says on the terminal, as the background daemon's own
// warning goes to its log, when no model resolves for these flags: its
// sessions' prompts will fail until one does, and the hint names every
// way to configure one.
func warnNoModel(stderr io.Writer, home string, f daemonFlags) {
	eng, err := engine.New(engine.Options{Home: home, Selection: f.models.selection()})
	if err == nil {
		err = eng.Check()
	}
	if err != nil {
		fmt.Fprintf(stderr, "troupe daemon: warning: no model resolves, prompts will fail until one does: %v\n", err)
	}
}

var errExited = errors.New("the daemon exited before it answered")

// awaitDaemon polls until the daemon pid answers /v1/health at the
// address its home names, it exits (reaped here: it is this process's
// child until then), or wait passes.
func awaitDaemon(ctx context.Context, home string, pid int, wait time.Duration) (string, error) {
	deadline := time.Now().Add(wait)
	for {
		var ws syscall.WaitStatus
		if got, _ := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil); got == pid {
			return "", fmt.Errorf("%w (exit status %d)", errExited, ws.ExitStatus())
		}
		if c, err := daemonclient.Discover(ctx, daemonclient.Options{Home: home}); err == nil {
			if h, err := c.Health(ctx); err == nil && h.PID == pid {
				return c.URL, nil
			}
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("the daemon (pid %d) did not answer within %s", pid, wait)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// logTail is what the daemon wrote to its log since offset, at most its
// last 20 lines.
func logTail(path string, offset int64) string {
	b, err := os.ReadFile(path)
	if err != nil || offset > int64(len(b)) {
		return "(unreadable)"
	}
	lines := strings.Split(strings.TrimRight(string(b[offset:]), "\n"), "\n")
	if len(lines) > 20 {
		lines = lines[len(lines)-20:]
	}
	return "  " + strings.Join(lines, "\n  ")
}
