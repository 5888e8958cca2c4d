package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/samber/lo"
	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/actors/sessions/engine"
	"github.com/troupehq/troupe/persistence"
	"github.com/troupehq/troupe/persistence/event"
)

// runPlan is what `troupe run` will do, settled before it records anything:
// a failed plan leaves the store as it was.
type runPlan struct {
	id      string
	create  *event.CreatedPayload // a new session
	change  event.Settings        // the flags' changes to an existing session
	runID   string                // the interrupted run to continue (no prompt)
	lastSeq int64                 // the log's end before this invocation
	// endpoint is the model server the resumed run will call, checked
	// before the session wakes; "" for a new prompt or a server troupe
	// starts itself (provider llama).
	endpoint string
}

// planRun picks the session and its settings. Without a prompt there must
// be an existing session with a run a crash interrupted.
func planRun(ctx context.Context, store *persistence.Store, eng *engine.Engine, f runFlags, set map[string]bool, prompt string) (runPlan, error) {
	cwd := f.cwd
	if cwd == "" {
		cwd, _ = os.Getwd()
	}
	id, exists, err := chooseSession(ctx, store, f, cwd)
	if err != nil {
		return runPlan{}, err
	}
	if !exists {
		if prompt == "" {
			return runPlan{}, fmt.Errorf("session %s does not exist: give a prompt to start it", id)
		}
		settings, err := newSessionSettings(eng, f)
		if err != nil {
			return runPlan{}, err
		}
		return runPlan{id: id, create: &event.CreatedPayload{Cwd: cwd, OriginTransport: "run", Settings: settings}}, nil
	}
	st, err := loadStoredSession(ctx, store, id)
	if err != nil {
		return runPlan{}, err
	}
	if prompt == "" && st.ActiveRun == "" {
		return runPlan{}, fmt.Errorf("session %s has no interrupted run to continue: give a prompt", id)
	}
	change, err := resumeSettings(eng, f, set, st.Settings)
	if err != nil {
		return runPlan{}, err
	}
	p := runPlan{id: id, change: change, lastSeq: st.LastSeq}
	if prompt == "" {
		p.runID = st.ActiveRun
		set := st.Settings.Merge(change)
		res, err := eng.CheckSettings(set)
		if err != nil {
			return runPlan{}, err
		}
		// Only a run that will call the model again needs its server: one
		// the crash policy stops is closed without it.
		if res.Provider != engine.LocalProvider && lo.FromPtr(set.CrashPolicy) != event.CrashStop {
			p.endpoint = res.BaseURL
		}
	}
	return p, nil
}

// chooseSession resolves --session and --resume to an id, and whether the
// store has that session.
func chooseSession(ctx context.Context, store *persistence.Store, f runFlags, cwd string) (string, bool, error) {
	switch {
	case f.resume == "latest":
		list, err := store.Sessions(ctx, cwd)
		if err != nil {
			return "", false, err
		}
		if len(list) == 0 {
			return "", false, fmt.Errorf("no session to resume in %s", cwd)
		}
		return list[0].ID, true, nil
	case f.resume != "":
		if _, err := store.Session(ctx, f.resume); err != nil {
			return "", false, err
		}
		return f.resume, true, nil
	case f.sessionID == "":
		return sessions.NewID(), false, nil
	}
	_, err := store.Session(ctx, f.sessionID)
	if errors.Is(err, persistence.ErrSessionNotFound) {
		return f.sessionID, false, nil
	}
	return f.sessionID, err == nil, err
}

// loadStoredSession folds what the plan needs from the log (settings, the
// active run, its end) without waking the session: waking it resumes an
// interrupted run, which must only happen once the flags' changes are
// settled.
func loadStoredSession(ctx context.Context, store *persistence.Store, id string) (sessions.State, error) {
	st := sessions.State{ID: id}
	var last int64
	err := store.Load(ctx, id, 1, func(e event.Event) error {
		last = e.Seq
		switch e.Kind {
		case event.SessionCreated, event.SessionSettingsChanged, event.RunStarted, event.RunEnded:
			return st.Apply(e)
		}
		return nil
	})
	if err != nil {
		return st, fmt.Errorf("read session %s: %w", id, err)
	}
	st.LastSeq = last
	return st, nil
}

// start records the plan: the new session, or the flags' changes to an
// existing one. The change is the first request the session serves, so
// the run it resumes (if a crash interrupted one) gets it too.
func (p runPlan) start(ctx context.Context, c *sessions.Client) (lastSeq int64, err error) {
	if p.create != nil {
		return 1, c.Create(ctx, p.id, *p.create)
	}
	if emptySettings(p.change) {
		return p.lastSeq, nil
	}
	if _, err := c.SetSettings(ctx, p.id, p.change); err != nil {
		return 0, err
	}
	return p.lastSeq, nil
}
