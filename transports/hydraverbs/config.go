package hydraverbs

import (
	"context"
	"strings"

	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/transports/acpupdate"
)

// config is the text form of session/set_config_option: with no id it
// lists the session's options (ACP's configOptions: the approval mode and,
// with a catalog, the model) and their values; with an id, that option's
// choices; with an id and a value, it sets it, which every attached
// client is shown as config_option_update.
func (v *Verbs) config(ctx context.Context, session, args string) string {
	st, err := v.cfg.Sessions.State(ctx, session)
	if err != nil {
		return "/hydra config: " + err.Error()
	}
	opts := acpupdate.ConfigOptions(v.cfg.Models, st.Settings)
	id, value := split(args)
	if id == "" {
		var b strings.Builder
		for _, o := range opts {
			b.WriteString(o.ID + " (" + o.Name + "): " + o.CurrentValue + "\n")
		}
		return b.String()
	}
	i := -1
	for j, o := range opts {
		if o.ID == id {
			i = j
		}
	}
	if i < 0 {
		known := make([]string, len(opts))
		for j, o := range opts {
			known[j] = o.ID
		}
		return "/hydra config: no option `" + id + "`; the options are " + strings.Join(known, ", ") + "."
	}
	o := opts[i]
	if value == "" {
		var b strings.Builder
		b.WriteString(o.Name + ":\n")
		for _, c := range o.Options {
			mark := "  "
			if c.Value == o.CurrentValue {
				mark = "▶ "
			}
			b.WriteString(mark + c.Value + "  " + c.Name + "\n")
		}
		return b.String()
	}
	set, ok := v.settingFor(o, value)
	if !ok {
		return "/hydra config: `" + value + "` is not a value of " + id + "; `/hydra config " + id + "` lists them."
	}
	if _, err := v.cfg.Sessions.SetSettings(ctx, session, set); err != nil {
		return "/hydra config: " + id + " not set: " + err.Error()
	}
	return id + " set to " + value + "."
}

// settingFor is the settings change that gives option o value.
func (v *Verbs) settingFor(o acpupdate.ConfigOption, value string) (event.Settings, bool) {
	known := false
	for _, c := range o.Options {
		known = known || c.Value == value
	}
	if !known {
		return event.Settings{}, false
	}
	switch o.ID {
	case "mode":
		return event.Settings{ApprovalMode: &value}, true
	case "model":
		for _, m := range v.cfg.Models.List() {
			if m.ID == value {
				set := event.Settings{Model: &m.ID}
				if m.Provider != "" {
					set.Provider = &m.Provider
				}
				return set, true
			}
		}
	}
	return event.Settings{}, false
}
