package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"reflect"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/troupehq/troupe/actors/plugins"
	"github.com/troupehq/troupe/actors/sessions/engine"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/transports/httpjson"
)

// reloader reads the home's models.yml and config.yml again while the
// daemon runs (SIGHUP, POST /v1/reload): the engine takes the new models,
// new sessions the new default model; config.yml's extensions and
// transformers are started with the daemon, so a change there is said to
// need a restart. A file that does not load keeps the old configuration.
type reloader struct {
	home     string
	eng      *engine.Engine
	plugins  plugins.Config // config.yml as the daemon started with it
	log      *slog.Logger
	settings atomic.Pointer[event.Settings]
	mu       sync.Mutex // one reload at a time
}

// newSessionSettings are a new session's settings from the engine's flags
// and models.yml; with no model resolving, none is recorded (warned of
// at start: the session's prompts fail until one resolves).
func newSessionSettings(eng *engine.Engine) event.Settings {
	settings, err := eng.DefaultSettings()
	if err != nil {
		settings.Provider, settings.Model = nil, nil
	}
	return settings
}

// current are a new session's settings now.
func (r *reloader) current() event.Settings { return *r.settings.Load() }

// Reload reads the files again and says, a line each, what reloaded; the
// error names each file that did not load (the old configuration stays).
func (r *reloader) Reload() (report []string, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var errs []error
	if what, err := r.eng.Reload(); err != nil {
		errs = append(errs, err)
	} else {
		report = append(report, what)
		settings := newSessionSettings(r.eng)
		r.settings.Store(&settings)
		if settings.Provider != nil && settings.Model != nil {
			report = append(report, fmt.Sprintf("new sessions: %s/%s", *settings.Provider, *settings.Model))
		}
	}
	path := filepath.Join(r.home, plugins.ConfigFile)
	cfg, err := plugins.LoadConfig(r.home)
	switch {
	case err != nil:
		errs = append(errs, fmt.Errorf("%s not reloaded (the daemon keeps the one it had): %w", path, err))
	case reflect.DeepEqual(cfg, r.plugins):
		report = append(report, path+": unchanged")
	default:
		report = append(report, path+" changed: its extensions, transformers and their settings are started with the daemon, "+
			"so they take effect at `troupe daemon restart` (add or remove one now with /v1/extensions or /v1/transformers)")
	}
	// At warn, the daemon's default level: a configuration that changed
	// under running sessions belongs in its log.
	for _, line := range report {
		r.log.Warn("reload", "what", line)
	}
	err = errors.Join(errs...)
	if err != nil {
		r.log.Error("reload", "error", err)
	}
	return report, err
}

// Reload reads models.yml and config.yml again (as SIGHUP does).
func (d *Daemon) Reload() ([]string, error) { return d.reload.Reload() }

// reloadOnHUP reloads on each SIGHUP until the daemon is asked to stop.
func (d *Daemon) reloadOnHUP(stop context.Context) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	for {
		select {
		case <-hup:
			_, _ = d.Reload() // logged
		case <-stop.Done():
			return
		}
	}
}

// reloadAnswer is POST /v1/reload's: what reloaded, a line each, and the
// files that did not load (the old configuration stays), each with why.
type reloadAnswer struct {
	Reloaded []string `json:"reloaded"`
	Errors   []string `json:"errors"`
}

// reloadHandler is POST /v1/reload, troupe's own route (`troupe daemon
// reload`): the reload SIGHUP makes, answered with what it did.
func (d *Daemon) reloadHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		report, err := d.Reload()
		ans := reloadAnswer{Reloaded: report, Errors: []string{}}
		if ans.Reloaded == nil {
			ans.Reloaded = []string{}
		}
		if err != nil {
			if j, ok := err.(interface{ Unwrap() []error }); ok {
				for _, e := range j.Unwrap() {
					ans.Errors = append(ans.Errors, e.Error())
				}
			} else {
				ans.Errors = append(ans.Errors, err.Error())
			}
		}
		httpjson.WriteJSON(w, http.StatusOK, ans)
	})
}
