package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/troupehq/troupe/runtime/datahome"
	"github.com/troupehq/troupe/runtime/pidfile"
	"github.com/troupehq/troupe/transports/daemonclient"
)

// defaultStopTimeout is how long stop waits for the ordered shutdown
// before SIGKILL.
const defaultStopTimeout = 30 * time.Second

func newDaemonStopCmd(a *app, common *commonFlags) *cobra.Command {
	var timeout time.Duration
	c := &cobra.Command{
		Use:   "stop",
		Short: "stop the background daemon: SIGTERM, then SIGKILL after --timeout",
		Args:  noArgs,
		RunE:  a.action(func([]string) int { return runDaemonStop(*common, timeout, a.stdout, a.stderr) }),
	}
	c.Flags().DurationVar(&timeout, "timeout", defaultStopTimeout, "how long to wait for the clean stop before SIGKILL")
	return c
}

func runDaemonStop(common commonFlags, timeout time.Duration, stdout, stderr io.Writer) int {
	home, err := datahome.Path(common.home)
	if err != nil {
		fmt.Fprintf(stderr, "troupe daemon stop: %v\n", err)
		return 1
	}
	return stopDaemon(home, timeout, stdout, stderr)
}

// stopDaemon sends SIGTERM to the daemon holding home's pid file, waits
// for it to be gone, and sends SIGKILL to its process group after
// timeout. Not running is not an error: the daemon is stopped either way.
func stopDaemon(home string, timeout time.Duration, stdout, stderr io.Writer) int {
	path := filepath.Join(home, daemonPIDFile)
	pid, held, err := pidfile.Read(path)
	if err != nil {
		fmt.Fprintf(stderr, "troupe daemon stop: %v\n", err)
		return 1
	}
	if !held {
		if pid != 0 {
			// Its daemon died without removing it (kill -9): nothing runs.
			_ = os.Remove(path)
			fmt.Fprintf(stdout, "troupe daemon: not running (removed the stale pid file of pid %d)\n", pid)
			return 0
		}
		fmt.Fprintf(stdout, "troupe daemon: not running on %s\n", home)
		return 0
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
		fmt.Fprintf(stderr, "troupe daemon stop: signal pid %d: %v\n", pid, err)
		return 1
	}
	if waitGone(pid, timeout) {
		fmt.Fprintf(stdout, "troupe daemon: stopped (pid %d)\n", pid)
		return 0
	}
	fmt.Fprintf(stderr, "troupe daemon stop: pid %d did not stop within %s (--timeout); sending SIGKILL\n", pid, timeout)
	// The daemon leads its own group (daemon start); its children that
	// share it go too.
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	_ = syscall.Kill(pid, syscall.SIGKILL)
	if !waitGone(pid, 10*time.Second) {
		fmt.Fprintf(stderr, "troupe daemon stop: pid %d survived SIGKILL\n", pid)
		return 1
	}
	_ = os.Remove(path)
	_ = os.Remove(filepath.Join(home, daemonclient.AddrFile))
	fmt.Fprintf(stdout, "troupe daemon: killed (pid %d)\n", pid)
	return 0
}

// waitGone polls until pid has exited or timeout passes.
func waitGone(pid int, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for !gone(pid) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}

// gone reports pid has exited: no such process, or a zombie (exited, not
// yet reaped by whichever process it was reparented to).
func gone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	rest := stat[strings.LastIndexByte(string(stat), ')')+1:]
	f := strings.Fields(string(rest))
	return len(f) > 0 && f[0] == "Z"
}

func newDaemonRestartCmd(a *app, common *commonFlags) *cobra.Command {
	var timeout time.Duration
	c := &cobra.Command{
		Use:   "restart",
		Short: "stop the background daemon, then start it again with its flags (those given replace theirs)",
		Args:  noArgs,
	}
	f := newStartFlags(c, common)
	c.Flags().DurationVar(&timeout, "timeout", defaultStopTimeout, "how long to wait for the clean stop before SIGKILL")
	c.RunE = a.action(func([]string) int { return runDaemonRestart(f, timeout, a.stdout, a.stderr) })
	return c
}

func runDaemonRestart(f *startFlags, timeout time.Duration, stdout, stderr io.Writer) int {
	home, err := datahome.Path(f.daemon.common.home)
	if err != nil {
		fmt.Fprintf(stderr, "troupe daemon restart: %v\n", err)
		return 1
	}
	info, held, _ := pidfile.ReadInfo(filepath.Join(home, daemonPIDFile))
	if held {
		if err := f.reuse(info); err != nil {
			fmt.Fprintf(stderr, "troupe daemon restart: the running daemon's flags: %v\n", err)
			return 1
		}
	}
	if code := stopDaemon(home, timeout, stdout, stderr); code != 0 {
		return code
	}
	return f.start(stdout, stderr)
}

// reuse sets each flag the running daemon was started with (its pid
// file's record) that the restart was not given anew: the restarted
// daemon listens where it listened, with the same settings. A secret
// flag was not recorded; the restart says so unless it was given again.
func (f *startFlags) reuse(info pidfile.Info) error {
	for _, arg := range info.Args {
		name, value, ok := strings.Cut(strings.TrimPrefix(arg, "--"), "=")
		if !ok || notRecorded[name] || secretFlags[name] {
			continue
		}
		fl := f.fs.Lookup(name)
		if fl == nil || fl.Changed {
			continue // a flag this troupe no longer has; one given anew
		}
		if err := f.fs.Set(name, value); err != nil {
			return fmt.Errorf("--%s: %w", name, err)
		}
	}
	for _, name := range info.Withheld {
		if fl := f.fs.Lookup(name); fl != nil && !fl.Changed {
			f.notes = append(f.notes, fmt.Sprintf("the daemon was started with --%s, which is not recorded; give it again to restart with it", name))
		}
	}
	return nil
}

// daemonStatus is what `troupe daemon status --json` prints.
type daemonStatus struct {
	Running   bool      `json:"running"`
	URL       string    `json:"url,omitempty"`
	PID       int       `json:"pid,omitempty"`
	StartedAt time.Time `json:"startedAt,omitzero"`
	Uptime    string    `json:"uptime,omitempty"`
	Version   string    `json:"version,omitempty"`
	Live      int       `json:"live"`
	Cold      int       `json:"cold"`
	// Cluster is a clustered daemon's members, each with the sessions it
	// hosts; the live and cold counts above are this member's store's.
	Cluster *daemonclient.ClusterHealth `json:"cluster,omitempty"`
}

// hostedWord says how many sessions a member hosts.
func hostedWord(n int) string {
	switch n {
	case -1:
		return "did not answer"
	case 1:
		return "1 session"
	}
	return fmt.Sprintf("%d sessions", n)
}

func newDaemonStatusCmd(a *app, common *commonFlags) *cobra.Command {
	var cf clientFlags
	var asJSON bool
	c := &cobra.Command{
		Use:   "status",
		Short: "whether a daemon runs on the home: address, pid, uptime, sessions",
		Long: "Whether a daemon runs on the home: its address, pid, uptime, version and " +
			"sessions.\n\nExit status: 0 it runs; 1 an error; 3 not running.",
		Args: noArgs,
		RunE: a.action(func([]string) int {
			cf.home = common.home
			return runDaemonStatus(cf, asJSON, a.stdout, a.stderr)
		}),
	}
	cf.registerRemote(c.Flags())
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return c
}

func runDaemonStatus(cf clientFlags, asJSON bool, stdout, stderr io.Writer) int {
	ctx := context.Background()
	home, err := datahome.Path(cf.home)
	if err != nil {
		fmt.Fprintf(stderr, "troupe daemon status: %v\n", err)
		return 1
	}
	c, err := daemonclient.Discover(ctx, cf.options(home))
	if foreign := (*daemonclient.ForeignURLError)(nil); errors.As(err, &foreign) {
		return discoverFailed(stderr, "daemon status", err)
	}
	if err != nil {
		if pid, held, _ := pidfile.Read(filepath.Join(home, daemonPIDFile)); held {
			fmt.Fprintf(stderr, "troupe daemon status: a daemon (pid %d) runs on %s but does not answer; see %s\n",
				pid, home, filepath.Join(home, daemonLogFile))
			return 1
		}
		if asJSON {
			_ = json.NewEncoder(stdout).Encode(daemonStatus{})
		} else {
			fmt.Fprintf(stdout, "troupe daemon: not running on %s (start it with `troupe daemon start`)\n", home)
		}
		return 3 // as LSB's status: not running
	}
	h, err := c.Health(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "troupe daemon status: %s\n", describe(err, c))
		return 1
	}
	st := daemonStatus{Running: true, URL: c.URL, PID: h.PID, StartedAt: h.StartedAt, Version: cmp.Or(h.TroupeVersion, h.Version),
		Uptime: time.Since(h.StartedAt).Round(time.Second).String(), Cluster: h.Cluster}
	list, err := listSessions(ctx, c)
	if err != nil {
		fmt.Fprintf(stderr, "troupe daemon status: %s\n", describe(err, c))
		return 1
	}
	for _, e := range list {
		if e.Status == "warm" {
			st.Live++
		} else {
			st.Cold++
		}
	}
	if asJSON {
		_ = json.NewEncoder(stdout).Encode(st)
		return 0
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "address\t%s\n", st.URL)
	fmt.Fprintf(tw, "pid\t%d\n", st.PID)
	fmt.Fprintf(tw, "uptime\t%s (since %s)\n", st.Uptime, st.StartedAt.Local().Format(time.DateTime))
	fmt.Fprintf(tw, "version\t%s\n", st.Version)
	fmt.Fprintf(tw, "sessions\t%d live, %d cold\n", st.Live, st.Cold)
	if c := st.Cluster; c != nil {
		fmt.Fprintf(tw, "cluster\t%s, this member %s\n", c.Name, c.Self)
		for _, m := range c.Members {
			fmt.Fprintf(tw, "member\t%s: %s\n", m.Address, hostedWord(m.Sessions))
		}
	}
	_ = tw.Flush()
	return 0
}
