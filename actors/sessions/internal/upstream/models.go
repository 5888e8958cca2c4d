package upstream

import (
	"encoding/json"

	acp "github.com/coder/acp-go-sdk"
	"github.com/troupehq/troupe/persistence/event"
)

// sessionAnswer is what troupe reads of the agent's session/new or
// session/load answer: its session id and what it says of its models,
// as a models state (set_model's) and as config options (the
// set_config_option fallback's).
type sessionAnswer struct {
	SessionID string `json:"sessionId"`
	Models    *struct {
		AvailableModels []struct {
			ModelID string `json:"modelId"`
			Name    string `json:"name"`
		} `json:"availableModels"`
		CurrentModelID string `json:"currentModelId"`
	} `json:"models"`
	ConfigOptions []struct {
		ID           string          `json:"id"`
		Category     string          `json:"category"`
		Type         string          `json:"type"`
		CurrentValue string          `json:"currentValue"`
		Options      json.RawMessage `json:"options"`
	} `json:"configOptions"`
}

// configValue is one choice of a select option; a group's choices are
// under options.
type configValue struct {
	Value   string        `json:"value"`
	Name    string        `json:"name"`
	Options []configValue `json:"options"`
}

// agentModels is what the answer says of the agent's models; nil when it
// says nothing.
func (s sessionAnswer) agentModels() *event.AgentModels {
	out := &event.AgentModels{Available: []event.AgentModel{}}
	if s.Models != nil {
		out.Current = s.Models.CurrentModelID
		for _, m := range s.Models.AvailableModels {
			out.Available = append(out.Available, event.AgentModel{ID: m.ModelID, Name: m.Name})
		}
	}
	for _, o := range s.ConfigOptions {
		if o.Category != "model" || o.Type != "select" {
			continue
		}
		out.ConfigID = o.ID
		if s.Models != nil {
			break
		}
		out.Current = o.CurrentValue
		var vals []configValue
		if json.Unmarshal(o.Options, &vals) != nil {
			break
		}
		for _, v := range vals {
			for _, c := range append([]configValue{v}, v.Options...) {
				if c.Value != "" {
					out.Available = append(out.Available, event.AgentModel{ID: c.Value, Name: c.Name})
				}
			}
		}
		break
	}
	if s.Models == nil && out.ConfigID == "" {
		return nil
	}
	return out
}

// sendModel forwards a client's model choice: session/set_model, and
// when the agent does not take it, set_config_option of its model option
// (the reference's fallback). An agent that takes neither keeps its
// model, which the log says.
func (a *agent) sendModel(conn *conn, sid acp.SessionId, model, configID string) {
	err := conn.call(a.ctx, "session/set_model", map[string]any{"sessionId": sid, "modelId": model}, nil)
	if err == nil {
		return
	}
	if configID != "" {
		err = conn.call(a.ctx, "session/set_config_option",
			map[string]any{"sessionId": sid, "configId": configID, "value": model}, nil)
		if err == nil {
			return
		}
	}
	a.log.Info("the agent did not take the model", "model", model, "error", err)
}
