package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/troupehq/troupe/actors"
	"github.com/troupehq/troupe/persistence"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/runtime/datahome"
)

// followPoll is how often --follow looks for new events; the writer may be
// another process, so polling the store is the one channel both share.
const followPoll = 100 * time.Millisecond

type eventsFlags struct {
	common commonFlags
	from   int64
	follow bool
}

func newEventsCmd(a *app) *cobra.Command {
	var f eventsFlags
	c := &cobra.Command{
		Use:   "events SESSION",
		Short: "print a session's events from the store as NDJSON",
		Args:  wantArgs(1, 1, "one SESSION"),
		RunE:  a.action(func(pos []string) int { return runEvents(f, pos[0], a.stdout, a.stderr) }),
	}
	f.common.register(c.Flags())
	c.Flags().Int64Var(&f.from, "from", 1, "first seq to print")
	c.Flags().BoolVar(&f.follow, "follow", false, "keep printing new events until interrupted")
	return c
}

func runEvents(f eventsFlags, id string, stdout, stderr io.Writer) int {
	common := f.common
	log, err := common.logger()
	if err != nil {
		fmt.Fprintf(stderr, "troupe events: %v\n", err)
		return 2
	}
	// events only reads: the home is not created, nor required writable,
	// and the store is opened read-only (no migration, nothing written).
	home, err := datahome.Path(common.home)
	if err != nil {
		fmt.Fprintf(stderr, "troupe events: %v\n", err)
		return 1
	}
	if fi, err := os.Stat(home); (err == nil && !fi.IsDir()) || errors.Is(err, syscall.ENOTDIR) {
		fmt.Fprintf(stderr, "troupe events: home %s: not a directory\n", home)
		return 1
	}
	path := filepath.Join(home, datahome.StoreFile)
	if _, err := os.Stat(path); err != nil {
		fmt.Fprintf(stderr, "troupe events: no store at %s (set --home or TROUPE_HOME)\n", path)
		return 1
	}
	store, err := persistence.OpenReadOnly(path)
	if err != nil {
		fmt.Fprintf(stderr, "troupe events: %v\n", err)
		return 1
	}
	defer store.Close()
	ctx, stop := actors.NotifyShutdown(context.Background(), log)
	defer stop()
	if err := printEvents(ctx, store, id, f.from, f.follow, stdout); err != nil {
		fmt.Fprintf(stderr, "troupe events: %v\n", err)
		return 1
	}
	return 0
}

func printEvents(ctx context.Context, store *persistence.Store, id string, from int64, follow bool, stdout io.Writer) error {
	if _, err := store.Session(ctx, id); err != nil {
		return err
	}
	w := bufio.NewWriter(stdout)
	enc := json.NewEncoder(w)
	next := max(from, 1)
	for {
		err := store.Load(ctx, id, next, func(e event.Event) error {
			next = e.Seq + 1
			return enc.Encode(e)
		})
		if err != nil && !errors.Is(err, context.Canceled) {
			return err
		}
		if err := w.Flush(); err != nil {
			return fmt.Errorf("write events: %w", err)
		}
		if !follow {
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(followPoll):
		}
	}
}
