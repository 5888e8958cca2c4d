package main

import (
	"context"
	"fmt"
	"io"
	"net/http"

	"github.com/spf13/cobra"
	"github.com/troupehq/troupe/runtime/datahome"
	"github.com/troupehq/troupe/transports/daemonclient"
)

// newDaemonReloadCmd is `troupe daemon reload`: the running daemon reads
// models.yml and config.yml again (as on SIGHUP) and says what reloaded.
func newDaemonReloadCmd(a *app, common *commonFlags) *cobra.Command {
	var cf clientFlags
	c := &cobra.Command{
		Use:   "reload",
		Short: "make the running daemon read models.yml and config.yml again (as SIGHUP does)",
		Long: "Make the running daemon read models.yml and config.yml again, as SIGHUP does: " +
			"runs that start after it and new sessions use the new models; config.yml's " +
			"extensions and transformers take effect at the next restart. A file that does " +
			"not load keeps the old configuration.\n\nExit status: 0 reloaded; 1 a file did " +
			"not load, or no daemon answered.",
		Args: noArgs,
		RunE: a.action(func([]string) int {
			cf.home = common.home
			return runDaemonReload(cf, a.stdout, a.stderr)
		}),
	}
	cf.registerRemote(c.Flags())
	return c
}

func runDaemonReload(cf clientFlags, stdout, stderr io.Writer) int {
	ctx := context.Background()
	home, err := datahome.Path(cf.home)
	if err != nil {
		fmt.Fprintf(stderr, "troupe daemon reload: %v\n", err)
		return 1
	}
	c, err := daemonclient.Discover(ctx, cf.options(home))
	if err != nil {
		return discoverFailed(stderr, "daemon reload", err)
	}
	var ans struct {
		Reloaded []string `json:"reloaded"`
		Errors   []string `json:"errors"`
	}
	if err := c.Do(ctx, http.MethodPost, "/v1/reload", nil, &ans); err != nil {
		fmt.Fprintf(stderr, "troupe daemon reload: %s\n", describe(err, c))
		return 1
	}
	for _, line := range ans.Reloaded {
		fmt.Fprintf(stdout, "troupe daemon: %s\n", line)
	}
	for _, e := range ans.Errors {
		fmt.Fprintf(stderr, "troupe daemon reload: %s\n", e)
	}
	if len(ans.Errors) > 0 {
		return 1
	}
	return 0
}
