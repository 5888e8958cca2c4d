package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/gorilla/websocket"
	"github.com/troupehq/troupe/runtime/boot"
	"github.com/troupehq/troupe/transports/daemonclient"
	"github.com/troupehq/troupe/transports/terminal"
	"golang.org/x/term"
)

// runSessionAttach is `troupe session attach ID [--readonly]
// [--from-start | --new-only]`: the live view of one session over the
// daemon's ACP WebSocket at url.
func runSessionAttach(ctx context.Context, url, token string, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("session attach", stderr)
	readonly := fs.Bool("readonly", false, "watch only: no permission answers, no cancel")
	fromStart := fs.Bool("from-start", false, "replay the whole conversation first")
	newOnly := fs.Bool("new-only", false, "replay nothing: only what happens from now")
	pos, err := parse(fs, args)
	if err != nil {
		return exitCode(err)
	}
	if len(pos) != 1 {
		fmt.Fprintln(stderr, "troupe session attach: want one session id: troupe session attach ID [--readonly] [--from-start | --new-only]")
		return 2
	}
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
	ws, err := dialACP(ctx, url, token)
	if err != nil {
		fmt.Fprintf(stderr, "troupe: %v\n", err)
		return 1
	}
	keys, restore := openKeys(stdin, stderr)
	defer restore()
	ints := make(chan os.Signal, 1)
	signal.Notify(ints, os.Interrupt)
	defer signal.Stop(ints)
	// Ended by a signal, the view still gives the terminal its modes back.
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()

	c := terminal.NewClient(terminal.ClientConfig{Conn: ws, Keys: keys, Out: stdout, Interrupts: ints,
		Options: terminal.Options{Colour: boot.Colour(stdout), Live: isTerminal(stdout)},
		Name:    "troupe session attach", Version: currentVersion()})
	defer c.Close()
	if err := c.Initialize(ctx); err != nil {
		fmt.Fprintf(stderr, "troupe: %v\n", err)
		return 1
	}
	err = c.Attach(ctx, terminal.AttachOptions{SessionID: pos[0], HistoryPolicy: policy, Readonly: *readonly})
	var rpc *terminal.RPCError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &rpc) && rpc.Code == terminal.CodeSessionNotFound:
		fmt.Fprintf(stderr, "troupe: session %s not found; list them with `troupe session list`\n", pos[0])
	case ctx.Err() != nil:
		fmt.Fprintln(stderr, "troupe: stopped by a signal")
	case errors.Is(err, terminal.ErrClosed):
		fmt.Fprintf(stderr, "troupe: %v; is it still running? `troupe daemon status`\n", err)
	default:
		fmt.Fprintf(stderr, "troupe: %v\n", err)
	}
	return 1
}

// dialACP opens the daemon's /acp WebSocket with the token as a
// subprotocol entry; a refusal is told in terms of its fix.
func dialACP(ctx context.Context, url, token string) (*websocket.Conn, error) {
	wsURL := "ws" + strings.TrimPrefix(strings.TrimSuffix(url, "/"), "http") + "/acp"
	dl := websocket.Dialer{Subprotocols: []string{"acp.v1", "hydra-acp-token." + token}}
	ws, res, err := dl.DialContext(ctx, wsURL, nil)
	if err == nil {
		return ws, nil
	}
	if res != nil && res.StatusCode == http.StatusUnauthorized {
		return nil, fmt.Errorf("the daemon at %s refused the token; pass the one in $TROUPE_HOME/auth-token with --token", url)
	}
	if res != nil {
		return nil, fmt.Errorf("the daemon at %s refused the connection: %s", url, res.Status)
	}
	return nil, fmt.Errorf("no daemon answers at %s (%v); start one with `troupe daemon start`", url, err)
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// runSessionAttachVerb is attach as a `troupe session` verb, on the
// daemon the dispatcher found.
func runSessionAttachVerb(ctx context.Context, c *daemonclient.Client, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if c == nil { // --help: no daemon needed
		return runSessionAttach(ctx, "", "", args, stdin, stdout, stderr)
	}
	return runSessionAttach(ctx, c.URL, c.Token, args, stdin, stdout, stderr)
}
