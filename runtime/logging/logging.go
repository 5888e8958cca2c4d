package logging

import (
	"cmp"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/lmittmann/tint"
	"golang.org/x/term"
)

// Options choose the log level and format. Logs always go to stderr in
// troupe: stdout is protocol in the stdio modes.
type Options struct {
	Level  string // debug | info | warn | error; empty: $TROUPE_LOG, else warn
	Format string // text (tint) | json
	Writer io.Writer
	// TimeFormat is the text format's time; empty: the time of day alone,
	// for a terminal (a log file wants the date too).
	TimeFormat string
}

// New builds the process logger.
func New(o Options) (*slog.Logger, error) {
	level := cmp.Or(o.Level, os.Getenv("TROUPE_LOG"), "warn")
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(strings.ToLower(level))); err != nil {
		return nil, fmt.Errorf("log level %q: want debug, info, warn or error", level)
	}
	w := o.Writer
	if w == nil {
		w = os.Stderr
	}
	switch o.Format {
	case "", "text":
		return slog.New(tint.NewHandler(w, &tint.Options{Level: lv, TimeFormat: cmp.Or(o.TimeFormat, time.TimeOnly), NoColor: !Colour(w)})), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: lv})), nil
	default:
		return nil, fmt.Errorf("log format %q: want text or json", o.Format)
	}
}

// Colour is whether output to w (text logs, the terminal view of
// `troupe session attach`) may carry ANSI colours: only on a terminal, and
// not when NO_COLOR is set to anything (no-color.org), since escapes in a
// file or a host's captured stderr are noise.
func Colour(w io.Writer) bool {
	if os.Getenv("NO_COLOR") != "" {
		return false
	}
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
