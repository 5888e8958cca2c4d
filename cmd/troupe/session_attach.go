package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/spf13/cobra"
	"github.com/troupehq/troupe/transports/daemonclient"
	"github.com/troupehq/troupe/transports/terminal"
)

// runSessionAttach is `troupe session attach ID [--readonly]
// [--from-start | --new-only]`: the live view of one session over the
// daemon's ACP WebSocket.
func newSessionAttachCmd(s *sessionCmd) *cobra.Command {
	verb := s.verb("attach")
	verb.Long = "The live view of one session over the daemon's /acp: streams the session " +
		"and answers its permission requests by key. Ctrl-C cancels the turn; twice, detaches."
	readonly := verb.Flags().Bool("readonly", false, "watch only: no permission answers, no cancel")
	fromStart := verb.Flags().Bool("from-start", false, "replay the whole conversation first")
	newOnly := verb.Flags().Bool("new-only", false, "replay nothing: only what happens from now")
	verb.Args = wantArgs(1, 1, "one session id: troupe session attach ID [--readonly] [--from-start | --new-only]")
	return s.run(verb, func(ctx context.Context, c *daemonclient.Client, pos []string, stdin io.Reader, stdout, stderr io.Writer) int {
		if *fromStart && *newOnly {
			fmt.Fprintln(stderr, "troupe session attach: --from-start and --new-only exclude each other")
			return 2
		}
		// By default: what still waits on someone (open permission requests),
		// then live.
		policy := "pending_only"
		switch {
		case *fromStart:
			policy = "full"
		case *newOnly:
			policy = "none"
		}
		view, err := openSessionView(ctx, c, viewOptions{name: "troupe session attach", keys: true}, stdin, stdout, stderr)
		if err != nil {
			return failed(stderr, "attach", c, err)
		}
		defer view.close()
		// Every Ctrl-C counts: once cancels, twice detaches.
		ints := make(chan os.Signal, 1)
		signal.Notify(ints, os.Interrupt)
		defer signal.Stop(ints)
		view.cfg.Interrupts = ints

		tc := terminal.NewClient(view.cfg)
		defer tc.Close()
		if err := tc.Initialize(view.ctx); err != nil {
			return failed(stderr, "attach", c, err)
		}
		err = tc.Attach(view.ctx, terminal.AttachOptions{SessionID: pos[0], HistoryPolicy: policy, Readonly: *readonly})
		switch {
		case err == nil:
			return 0
		case view.ctx.Err() != nil:
			fmt.Fprintln(stderr, "troupe session attach: stopped by a signal")
			return 1
		}
		return failed(stderr, "attach", c, err)
	})
}
