package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/troupehq/troupe/testkit/sim"
	"github.com/troupehq/troupe/transports/daemonclient"
)

func newSimCmd(a *app) *cobra.Command {
	var f simFlags
	c := &cobra.Command{
		Use:   "sim SCENARIO.yml",
		Short: "run a fault scenario against a daemon, check its invariants",
		Long: "Run a scenario of many sessions with scripted models, prompts, reattaching " +
			"clients and faults against a daemon (its own by default, started from this " +
			"binary on a fresh home), check its invariants and print the report.\n\n" +
			"Exit status: 0 no invariant broke; 1 one did, or the run could not be made; " +
			"2 bad flags or a bad scenario.",
		Args: wantArgs(1, 1, "one scenario file"),
		RunE: a.action(func(pos []string) int { return runSim(f, pos[0], a.stdout, a.stderr) }),
	}
	fs := c.Flags()
	f.common.register(fs)
	fs.StringVar(&f.seed, "seed", "", "seed of the fault schedule (default: the scenario's)")
	fs.BoolVar(&f.embedded, "embedded", false, "run a daemon of the simulator's own, from this binary, on a fresh home (the default)")
	fs.StringVar(&f.daemonURL, "daemon", "", "run against this daemon instead (no kill_daemon faults); start it with OPENAI_BASE_URL at --llm-listen/v1")
	fs.StringVar(&f.token, "token", "", "the --daemon's service token (default $TROUPE_TOKEN, else the --home's auth-token)")
	fs.StringVar(&f.llmListen, "llm-listen", "127.0.0.1:0", "address the scripted models listen on")
	fs.StringVar(&f.work, "work", "", "directory kept for the run's home and session directories (default: a temporary one, removed)")
	return c
}

type simFlags struct {
	common    commonFlags
	seed      string
	embedded  bool
	daemonURL string
	token     string
	llmListen string
	work      string
}

// runSim exits 0 when no invariant broke, 1 when one did or the run could
// not be made, 2 on bad flags or a bad scenario.
func runSim(f simFlags, scenario string, stdout, stderr io.Writer) int {
	fail := func(code int, err error) int {
		fmt.Fprintf(stderr, "troupe sim: %v\n", err)
		return code
	}
	if f.embedded && f.daemonURL != "" {
		return fail(2, errors.New("--embedded and --daemon exclude each other"))
	}
	scn, err := sim.Load(scenario)
	if err != nil {
		return fail(2, err)
	}
	log, err := f.common.logger()
	if err != nil {
		return fail(2, err)
	}
	opts := sim.Options{DaemonURL: f.daemonURL, Home: f.common.home, LLMListen: f.llmListen, Work: f.work, Log: log}
	if f.seed != "" {
		if opts.Seed, err = strconv.ParseUint(f.seed, 10, 64); err != nil {
			return fail(2, fmt.Errorf("--seed %q: want a number", f.seed))
		}
		opts.SeedSet = true
	}
	if f.daemonURL == "" {
		if opts.Bin, err = os.Executable(); err != nil {
			return fail(1, fmt.Errorf("find this binary: %w", err))
		}
	} else if opts.Token, err = simToken(f.token, f.common.home, f.daemonURL); err != nil {
		return fail(2, err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, err := sim.Run(ctx, scn, opts)
	if err != nil {
		return fail(1, err)
	}
	res.Report(stdout)
	if !res.OK() {
		return 1
	}
	return 0
}

// simToken is the external daemon's token: the flag, $TROUPE_TOKEN, or
// the home's auth-token file when url is the home's own daemon.
func simToken(flagValue, home, url string) (string, error) {
	if flagValue != "" {
		return flagValue, nil
	}
	if t := os.Getenv("TROUPE_TOKEN"); t != "" {
		return t, nil
	}
	if home == "" {
		return "", errors.New("--daemon needs --token, $TROUPE_TOKEN or --home")
	}
	t, err := daemonclient.HomeToken(home, url)
	if err != nil {
		return "", err
	}
	if t == "" {
		return "", fmt.Errorf("read the daemon's token: no %s in %s", daemonclient.TokenFile, home)
	}
	return t, nil
}
