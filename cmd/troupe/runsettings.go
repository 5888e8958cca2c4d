package main

import (
	"github.com/spf13/pflag"
	"github.com/troupehq/troupe/actors/sessions/engine"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/runtime/modelconfig"
	"reflect"
)

// A session's run settings (approval mode, provider, model, thinking level,
// crash policy, auto-retry) are part of its log: a new session records the
// flags' values in session.created, a resumed one runs on what its log
// says, and only the flags given on the command line change that, each
// change recorded as session.settings_changed. --base-url is recorded
// with the provider (a resume after a crash must reach the server the
// session ran against, not the provider's default); --api-key,
// --max-tokens and --max-turns stay with the invocation.

// explicitFlags names the flags given on the command line.
func explicitFlags(fs *pflag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(f *pflag.Flag) { set[f.Name] = true })
	return set
}

// newSessionSettings are what a new session records: every setting the
// flags define, with the provider and model as resolved, so that the
// session keeps them even if models.yml's default changes.
func newSessionSettings(eng *engine.Engine, f runFlags) (event.Settings, error) {
	s := event.Settings{ApprovalMode: ptr(f.mode), CrashPolicy: ptr(f.crashPolicy), AutoRetry: ptr(!f.models.noRetry)}
	if f.models.thinking != "" {
		s.ThinkingLevel = ptr(f.models.thinking)
	}
	res, err := eng.CheckSettings(s)
	if err != nil {
		return s, err
	}
	s.Provider, s.Model = ptr(res.Provider), ptr(res.Model.ID)
	if f.models.baseURL != "" {
		s.BaseURL = ptr(res.BaseURL)
	}
	return s, nil
}

// resumeSettings are the changes the explicit flags make to an existing
// session's settings: only what differs from the log. --model alone keeps
// the session's provider; --provider alone, naming another provider, takes
// that provider's default model. The result is checked against models.yml
// before anything is recorded.
func resumeSettings(eng *engine.Engine, f runFlags, set map[string]bool, stored event.Settings) (event.Settings, error) {
	var upd event.Settings
	if set["mode"] || f.yolo {
		upd.ApprovalMode = ptr(f.mode)
	}
	if set["thinking"] {
		upd.ThinkingLevel = ptr(f.models.thinking)
		if f.models.thinking == "" {
			upd.ThinkingLevel = ptr(string(modelconfig.ThinkingOff))
		}
	}
	if set["crash-policy"] {
		upd.CrashPolicy = ptr(f.crashPolicy)
	}
	if set["no-retry"] {
		upd.AutoRetry = ptr(!f.models.noRetry)
	}
	model := set["provider"] || set["model"]
	if set["provider"] {
		upd.Provider = ptr(f.models.provider)
		if stored.Provider == nil || *stored.Provider != f.models.provider {
			upd.Model = ptr("") // another provider: its own default model
		}
	}
	if set["model"] {
		upd.Model = ptr(f.models.model)
	}
	if set["base-url"] {
		upd.BaseURL = ptr(f.models.baseURL)
	}
	res, err := eng.CheckSettings(stored.Merge(upd))
	if err != nil {
		return event.Settings{}, err
	}
	if model {
		upd.Provider, upd.Model = ptr(res.Provider), ptr(res.Model.ID)
	}
	if set["base-url"] && f.models.baseURL != "" {
		upd.BaseURL = ptr(res.BaseURL)
	}
	return changedSettings(stored, upd), nil
}

// changedSettings drops from upd every field that stored already has.
func changedSettings(stored, upd event.Settings) event.Settings {
	same := func(a, b *string) bool { return a != nil && b != nil && *a == *b }
	for _, p := range []struct{ stored, upd **string }{
		{&stored.Provider, &upd.Provider}, {&stored.Model, &upd.Model}, {&stored.BaseURL, &upd.BaseURL}, {&stored.ThinkingLevel, &upd.ThinkingLevel},
		{&stored.ApprovalMode, &upd.ApprovalMode}, {&stored.CrashPolicy, &upd.CrashPolicy},
	} {
		if same(*p.stored, *p.upd) {
			*p.upd = nil
		}
	}
	if stored.AutoRetry != nil && upd.AutoRetry != nil && *stored.AutoRetry == *upd.AutoRetry {
		upd.AutoRetry = nil
	}
	return upd
}

// emptySettings reports whether s changes nothing.
func emptySettings(s event.Settings) bool {
	return reflect.ValueOf(s).IsZero()
}

func ptr[T any](v T) *T { return &v }
