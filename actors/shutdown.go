package actors

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/troupehq/troupe/actors/storewriter"
	"github.com/troupehq/troupe/actors/transports"
)

// Stage is a step of shutdown. Stages run in this order; components hook
// into theirs with OnShutdown.
type Stage int

const (
	// StageInput: stop accepting connections and commands.
	StageInput Stage = iota
	// StageTransports: let transports finish writing what they owe clients.
	StageTransports
	// StageSessions: sessions stop (their runs, tools and subscriptions with them).
	StageSessions
	// StageProcesses: tool and model processes outside sessions stop.
	StageProcesses
	// StageStore: the writer commits what it holds and the store closes.
	StageStore
	stageCount
)

var stageNames = [...]string{"input", "transports", "sessions", "processes", "store"}

func (s Stage) String() string { return stageNames[s] }

// OnShutdown runs fn during stage, in registration order.
func (rt *Runtime) OnShutdown(stage Stage, fn func(context.Context) error) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	rt.hooks[stage] = append(rt.hooks[stage], fn)
}

// Shutdown stops everything in stage order: ActorSystem.Shutdown stops no
// actor by itself, so the order is troupe's to keep. It is safe to call more
// than once; later calls return the first result.
func (rt *Runtime) Shutdown(ctx context.Context) error {
	rt.shutdown.Do(func() { rt.err = rt.stop(ctx) })
	return rt.err
}

func (rt *Runtime) stop(ctx context.Context) error {
	var errs []error
	for st := StageInput; st < stageCount; st++ {
		rt.Log.Debug("shutdown stage", "stage", st.String())
		rt.mu.Lock()
		hooks := rt.hooks[st]
		rt.mu.Unlock()
		for _, fn := range hooks {
			if err := fn(ctx); err != nil {
				errs = append(errs, fmt.Errorf("shutdown %s: %w", st, err))
			}
		}
		switch st {
		case StageTransports:
			errs = append(errs, rt.stopTransports(ctx))
		case StageSessions:
			errs = append(errs, rt.stopSessions(ctx))
		case StageStore:
			errs = append(errs, rt.stopStore(ctx))
		}
	}
	rt.System.Shutdown()
	rt.dispatch.Close()
	return errors.Join(errs...)
}

// TransportGrace is the longest the transports stage waits for transports
// to finish what they owe their clients (an aborted run's end) before it
// stops them; at most two thirds of what is left of the shutdown's
// deadline, so that sessions and the store keep time to stop.
const TransportGrace = 20 * time.Second

// stopTransports terminates every transport, waits for them to finish
// (within the grace), and stops the transports supervisor.
func (rt *Runtime) stopTransports(ctx context.Context) error {
	grace := TransportGrace
	if dl, ok := ctx.Deadline(); ok {
		grace = min(grace, time.Until(dl)*2/3)
	}
	var errs []error
	res, err := rt.System.Root.RequestFuture(rt.transports, &transports.Drain{Grace: grace}, grace+5*time.Second).Result()
	if err != nil {
		errs = append(errs, fmt.Errorf("drain transports: %w", err))
	} else if d, ok := res.(*transports.Drained); ok && len(d.Late) > 0 {
		rt.Log.Warn("transports stopped before they finished", "transports", d.Late)
	}
	if err := rt.System.Root.PoisonFuture(rt.transports).Wait(); err != nil {
		errs = append(errs, fmt.Errorf("stop transports: %w", err))
	}
	return errors.Join(errs...)
}

func (rt *Runtime) stopSessions(ctx context.Context) error {
	if err := rt.System.Root.PoisonFuture(rt.registry).Wait(); err != nil {
		return fmt.Errorf("stop sessions: %w", err)
	}
	return nil
}

// stopStore drains the writer (every append sent before this point is
// committed), stops the tree and closes the store.
func (rt *Runtime) stopStore(ctx context.Context) error {
	wait := 30 * time.Second
	if dl, ok := ctx.Deadline(); ok {
		wait = time.Until(dl)
	}
	var errs []error
	if _, err := rt.System.Root.RequestFuture(rt.writer, &storewriter.Drain{}, wait).Result(); err != nil {
		errs = append(errs, fmt.Errorf("drain store writer: %w", err))
	}
	if err := rt.System.Root.PoisonFuture(rt.guardian).Wait(); err != nil {
		errs = append(errs, fmt.Errorf("stop guardian: %w", err))
	}
	if err := rt.Store.Close(); err != nil {
		errs = append(errs, fmt.Errorf("close store: %w", err))
	}
	return errors.Join(errs...)
}
