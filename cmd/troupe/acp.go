package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/transports/acp"
)

func newACPCmd(a *app) *cobra.Command {
	var f acpFlags
	c := &cobra.Command{
		Use:   "acp",
		Short: "an ACP agent on stdin/stdout, for editors that spawn one",
		Long: "Be an ACP agent on stdin/stdout (newline-delimited JSON-RPC 2.0), for " +
			"editors that spawn one. Sessions live in the home's store, so a later " +
			"`troupe acp` can load them.",
		Args: cobra.ArbitraryArgs, // ignored, as they always were: editors spawn it as they like
		RunE: a.action(func([]string) int { return runACP(f, a.stdin, a.stdout, a.stderr) }),
	}
	fs := c.Flags()
	f.common.register(fs)
	f.models.register(fs)
	enumVar(fs, &f.approval, "approval-mode", event.ApprovalDefault, approvalModes, "approval mode of new sessions; the client is asked for calls needing approval")
	fs.IntVar(&f.maxLine, "max-line", 0, "largest accepted message in bytes (default 16 MiB)")
	return c
}

type acpFlags struct {
	common   commonFlags
	models   modelFlags
	approval string
	maxLine  int
}

func runACP(f acpFlags, stdin io.Reader, stdout, stderr io.Writer) int {
	fail := func(code int, err error) int {
		fmt.Fprintf(stderr, "troupe acp: %v\n", err)
		return code
	}
	h, err := startHost(f.common, hostSetup{Command: "troupe acp", Check: true, Faults: true, Engine: f.models.engine(f.approval, false)})
	if err != nil {
		return fail(exitCodeOf(err), err)
	}
	defer h.stop()
	settings, err := h.eng.DefaultSettings()
	if err != nil {
		return fail(2, errors.Join(err, shutdown(h.rt)))
	}
	cfg := acp.Config{Sessions: h.rt.Sessions, Models: h.eng.Models(), Transport: "stdio", Version: currentVersion(), Settings: settings}
	d, err := serveTransport(h.ctx, h.rt, acp.Props(cfg, acp.StdioFraming(stdin, stdout, f.maxLine)), "acp")
	return exitStatus(d, err, func(err error) { fmt.Fprintf(stderr, "troupe acp: %v\n", err) })
}
