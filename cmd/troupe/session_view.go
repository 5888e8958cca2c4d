package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/troupehq/troupe/runtime/logging"
	"github.com/troupehq/troupe/transports/daemonclient"
	"github.com/troupehq/troupe/transports/terminal"
	"golang.org/x/term"
)

// viewOptions say how `session attach` and `session prompt` differ in
// showing a session.
type viewOptions struct {
	name string // the clientInfo name
	// keys reads the person's keys from stdin (put in key-at-a-time mode
	// when it is a terminal).
	keys bool
	// side, when set, takes all but the agent's answer (prompt: stderr,
	// so the answer alone can be piped).
	side io.Writer
}

// sessionView is a terminal.Client's configuration on the daemon's /acp,
// with the context it runs under and what gives the terminal back.
type sessionView struct {
	ctx   context.Context
	cfg   terminal.ClientConfig
	close func()
}

// openSessionView dials /acp. Colours and the live spinner follow the
// terminal: every stream written must be one, and NO_COLOR unset. The
// view's context ignores the dispatcher's Ctrl-C (the view reads it as a
// key, or through Interrupts) but ends on SIGTERM or SIGHUP, so the
// terminal gets its modes back however troupe is ended.
func openSessionView(ctx context.Context, c *daemonclient.Client, o viewOptions, stdin io.Reader, stdout, stderr io.Writer) (*sessionView, error) {
	ws, err := c.DialWS(ctx)
	if err != nil {
		return nil, err
	}
	opts := terminal.Options{Colour: logging.Colour(stdout), Live: isTerminal(stdout), Side: o.side}
	if o.side != nil {
		opts.Colour = opts.Colour && logging.Colour(o.side)
		opts.Live = opts.Live && isTerminal(o.side)
	}
	v := &sessionView{cfg: terminal.ClientConfig{Conn: ws, Out: stdout, Options: opts,
		Name: o.name, Version: currentVersion()}}
	restore := func() {}
	if o.keys {
		v.cfg.Keys, restore = openKeys(stdin, stderr)
	}
	vctx, stop := signal.NotifyContext(context.WithoutCancel(ctx), syscall.SIGTERM, syscall.SIGHUP)
	v.ctx = vctx
	v.close = func() {
		stop()
		restore()
	}
	return v, nil
}

func isTerminal(f any) bool {
	o, ok := f.(*os.File)
	return ok && term.IsTerminal(int(o.Fd()))
}
