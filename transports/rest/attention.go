package rest

import (
	"context"
	"net/http"

	"github.com/samber/lo"
	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/transports/acpupdate"
	"github.com/troupehq/troupe/transports/httpjson"
)

// attentionSource is the source of every flag troupe raises itself.
const attentionSource = "daemon"

// flag is one attention flag as the protocol shows it.
type flag struct {
	SessionID string `json:"sessionId,omitempty"`
	Source    string `json:"source"`
	Reason    string `json:"reason"`
	RaisedAt  int64  `json:"raisedAt"`
	Payload   any    `json:"payload"`
}

// attention folds a session's log into its raised flags: the
// attention.changed events applied in turn, and a "permission" flag for each permission
// request of a run still open (run.ended and run.interrupted settle them).
type attention struct {
	set       []event.AttentionFlag
	pending   map[string]flag // by tool call id
	order     []string
	callsRuns map[string]string // tool call id -> run id
}

func newAttention() *attention {
	return &attention{pending: map[string]flag{}, callsRuns: map[string]string{}}
}

func (a *attention) add(e event.Event) error {
	p, err := event.DecodePayload(e.Kind, e.Payload)
	if err != nil {
		return nil
	}
	switch v := p.(type) {
	case *event.AttentionPayload:
		a.set = v.Apply(a.set, e.RecordedAt.UnixMilli())
	case *event.PermissionRequestedPayload:
		options := make([]map[string]string, 0, len(v.Options))
		for _, o := range v.Options {
			options = append(options, map[string]string{"optionId": o.OptionID, "name": o.Name, "kind": o.Kind})
		}
		call := acpupdate.ToolCall{ToolCallID: v.ToolCallID, Title: acpupdate.ToolTitle(v.Name), Kind: acpupdate.ToolKind(v.Name, v.Category), RawInput: acpupdate.RawInput(v.Arguments)}
		a.pending[v.ToolCallID] = flag{Source: attentionSource, Reason: "permission", RaisedAt: e.RecordedAt.UnixMilli(),
			Payload: map[string]any{"toolCall": call, "options": options}}
		a.order = append(a.order, v.ToolCallID)
		a.callsRuns[v.ToolCallID] = v.RunID
	case *event.PermissionResolvedPayload:
		delete(a.pending, v.ToolCallID)
	case *event.RunEndedPayload:
		a.settle(v.RunID)
	case *event.RunInterruptedPayload:
		a.settle(v.RunID)
	}
	return nil
}

func (a *attention) settle(run string) {
	for call, r := range a.callsRuns {
		if r == run {
			delete(a.pending, call)
			delete(a.callsRuns, call)
		}
	}
}

// raised is every flag, the set's first, then permissions in request order.
func (a *attention) raised() []flag {
	out := make([]flag, 0, len(a.set)+len(a.pending))
	for _, f := range a.set {
		var payload any = map[string]any{}
		if len(f.Payload) > 0 {
			payload = f.Payload
		}
		out = append(out, flag{Source: f.Source, Reason: f.Reason, RaisedAt: f.RaisedAt, Payload: payload})
	}
	for _, call := range a.order {
		if f, ok := a.pending[call]; ok {
			out = append(out, f)
		}
	}
	return out
}

func (a *API) sessionFlags(ctx context.Context, id string) ([]flag, error) {
	all, err := a.flagsOf(ctx, []string{id})
	return all[id], err
}

// flagsOf folds the raised flags of each session in ids from the store,
// reading only the kinds the fold needs; a session with none is absent.
func (a *API) flagsOf(ctx context.Context, ids []string) (map[string][]flag, error) {
	out := map[string][]flag{}
	if len(ids) == 0 {
		return out, nil
	}
	var att *attention
	cur := ""
	done := func() {
		if att != nil {
			if f := att.raised(); len(f) > 0 {
				out[cur] = f
			}
		}
	}
	err := a.cfg.Sessions.LoadAttention(ctx, ids, func(e event.Event) error {
		if e.SessionID != cur {
			done()
			att, cur = newAttention(), e.SessionID
		}
		return att.add(e)
	})
	if err != nil {
		return nil, err
	}
	done()
	return out, nil
}

func (a *API) attention(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	ctx, cancel := context.WithTimeout(r.Context(), requestTimeout)
	defer cancel()
	if _, err := a.cfg.Sessions.Meta(ctx, id); err != nil {
		a.sessionError(w, id, err)
		return
	}
	flags, err := a.sessionFlags(ctx, id)
	if err != nil {
		a.sessionError(w, id, err)
		return
	}
	if flags == nil {
		flags = []flag{} // none raised: an empty list, as clients iterate it
	}
	httpjson.WriteJSON(w, http.StatusOK, map[string]any{"flags": flags})
}

// attentionBySource lists the flags of one source (all when none is
// named) across sessions.
func (a *API) attentionBySource(w http.ResponseWriter, r *http.Request) {
	source := r.URL.Query().Get("source")
	ctx, cancel := context.WithTimeout(r.Context(), requestTimeout)
	defer cancel()
	metas, err := a.cfg.Sessions.List(ctx, "")
	if err != nil {
		a.sessionError(w, "", err)
		return
	}
	all, err := a.flagsOf(ctx, metaIDs(metas))
	if err != nil {
		a.sessionError(w, "", err)
		return
	}
	out := []flag{}
	for _, m := range metas {
		for _, f := range all[m.ID] {
			if source == "" || f.Source == source {
				f.SessionID = m.ID
				out = append(out, f)
			}
		}
	}
	httpjson.WriteJSON(w, http.StatusOK, map[string]any{"flags": out})
}

// metaIDs are the sessions' ids, or none (every session) past what one
// query should name.
func metaIDs(metas []sessions.Meta) []string {
	if len(metas) > 500 {
		return nil
	}
	return lo.Map(metas, func(m sessions.Meta, _ int) string { return m.ID })
}
