package actors_test

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/troupehq/troupe/actors"
	"github.com/troupehq/troupe/persistence"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/runtime/datahome"
	"github.com/troupehq/troupe/runtime/logging"
	"github.com/troupehq/troupe/testkit"
)

func TestShutdownRunsStagesInOrder(t *testing.T) {
	rt, err := actors.Start(actors.Options{Home: t.TempDir(), Logger: testkit.TestLogger(t)})
	testkit.NoError(t, err)
	ctx := context.Background()
	testkit.NoError(t, rt.Sessions.Create(ctx, "s", event.CreatedPayload{Cwd: "/w"}))

	var mu sync.Mutex
	var order []string
	record := func(name string, check func()) func(context.Context) error {
		return func(context.Context) error {
			if check != nil {
				check()
			}
			mu.Lock()
			order = append(order, name)
			mu.Unlock()
			return nil
		}
	}
	rt.OnShutdown(actors.StageStore, record("store", nil))
	rt.OnShutdown(actors.StageProcesses, record("processes", func() {
		if _, err := rt.Sessions.Live(ctx); err == nil {
			t.Error("sessions supervisor still answers after the sessions stage")
		}
	}))
	rt.OnShutdown(actors.StageSessions, record("sessions", nil))
	rt.OnShutdown(actors.StageTransports, record("transports", nil))
	rt.OnShutdown(actors.StageInput, record("input", nil))

	sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	testkit.NoError(t, rt.Shutdown(sctx))
	testkit.DeepEqual(t, order, []string{"input", "transports", "sessions", "processes", "store"})
	if _, err := rt.Store.Session(ctx, "s"); err == nil {
		t.Fatal("store still open after shutdown")
	}
	testkit.NoError(t, rt.Shutdown(sctx)) // idempotent

	// The sessions' last words (cold status) were drained into the store.
	store, err := persistence.Open(filepath.Join(rt.Home, datahome.StoreFile), persistence.Options{})
	testkit.NoError(t, err)
	defer store.Close()
	meta, err := store.Session(ctx, "s")
	testkit.NoError(t, err)
	testkit.Equal(t, meta.Status, persistence.StatusCold)
}

func TestLoggerOptions(t *testing.T) {
	if _, err := logging.New(logging.Options{Level: "loud"}); err == nil {
		t.Fatal("bad log level accepted")
	}
	if _, err := logging.New(logging.Options{Format: "xml"}); err == nil {
		t.Fatal("bad log format accepted")
	}
	var buf strings.Builder
	log, err := logging.New(logging.Options{Level: "info", Format: "json", Writer: &buf})
	testkit.NoError(t, err)
	log.Debug("hidden")
	log.Info("shown", "k", 1)
	if strings.Contains(buf.String(), "hidden") || !strings.Contains(buf.String(), `"msg":"shown"`) {
		t.Fatalf("log output: %s", buf.String())
	}
}
