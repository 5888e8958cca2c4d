package acpupdate

import (
	"cmp"

	"github.com/samber/lo"
	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/persistence/event"
)

// ModeNames are the approval modes, ACP's session modes, with their names.
var ModeNames = map[string]string{
	event.ApprovalDefault:  "Ask before edits and commands",
	event.ApprovalAutoEdit: "Edit without asking",
	event.ApprovalYolo:     "Run everything without asking",
}

// CurrentMode is the approval mode of settings s.
func CurrentMode(s event.Settings) string {
	return cmp.Or(lo.FromPtr(s.ApprovalMode), event.ApprovalDefault)
}

// ConfigValue is one value a config option may take.
type ConfigValue struct {
	Value string `json:"value"`
	Name  string `json:"name"`
}

// ConfigOption is one of a session's config options.
type ConfigOption struct {
	ID           string        `json:"id"`
	Name         string        `json:"name"`
	Category     string        `json:"category"`
	Type         string        `json:"type"`
	CurrentValue string        `json:"currentValue"`
	Options      []ConfigValue `json:"options"`
}

// ConfigOptions are the session's mode and, when models are known, its
// model: troupe's, or for a session on an external agent the ones that
// agent advertised.
func ConfigOptions(models sessions.Models, s event.Settings) []ConfigOption {
	modeOpt := ConfigOption{ID: "mode", Name: "Approval mode", Category: "mode", Type: "select", CurrentValue: CurrentMode(s)}
	for _, m := range event.ApprovalModes() {
		modeOpt.Options = append(modeOpt.Options, ConfigValue{Value: m, Name: ModeNames[m]})
	}
	out := []ConfigOption{modeOpt}
	if ext := lo.FromPtr(s.Agent); ext != "" && ext != "troupe" {
		// A session on an external agent offers the agent's models, none
		// until the agent said what they are.
		am := s.AgentModels
		if am == nil || len(am.Available) == 0 {
			return out
		}
		modelOpt := ConfigOption{ID: "model", Name: "Model", Category: "model", Type: "select",
			CurrentValue: cmp.Or(lo.FromPtr(s.AgentModel), am.Current), Options: []ConfigValue{}}
		for _, m := range am.Available {
			modelOpt.Options = append(modelOpt.Options, ConfigValue{Value: m.ID, Name: cmp.Or(m.Name, m.ID)})
		}
		return append(out, modelOpt)
	}
	if models == nil {
		return out
	}
	cur, _ := Model(models, s)
	modelOpt := ConfigOption{ID: "model", Name: "Model", Category: "model", Type: "select", CurrentValue: cur.ID, Options: []ConfigValue{}}
	for _, m := range models.List() {
		modelOpt.Options = append(modelOpt.Options, ConfigValue{Value: m.ID, Name: m.Name})
	}
	return append(out, modelOpt)
}

// Model is the model a session with settings s runs on; false without a
// catalog or when it does not resolve.
func Model(models sessions.Models, s event.Settings) (sessions.Model, bool) {
	if models == nil {
		return sessions.Model{}, false
	}
	provider, id := models.Default()
	m, err := models.Model(lo.FromPtrOr(s.Provider, provider), lo.FromPtrOr(s.Model, id))
	return m, err == nil
}
