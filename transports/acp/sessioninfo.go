package acp

import (
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/transports/acpupdate"
)

// sessionInfo is what an attachment reads from its session's log for the
// answers' _meta that its view does not keep: where the session came
// from, the turn under way and the latest usage. Hydra's TUI seeds its
// busy clock, usage bar and fork breadcrumbs from them on attach.
type sessionInfo struct {
	created       *event.CreatedPayload // the session's own session.created
	turnStartedAt int64                 // epoch ms the run under way started; 0: none
	usage         *acpupdate.Usage      // the last usage_update
}

// addTo adds what is known to an answer's _meta["hydra-acp"].
func (i *sessionInfo) addTo(m map[string]any) {
	m["agentCapabilities"] = agentCapabilities()
	if i.turnStartedAt > 0 {
		m["turnStartedAt"] = i.turnStartedAt
	}
	if u := i.usage; u != nil {
		cur := map[string]any{"used": u.Used}
		if u.Size > 0 {
			cur["size"] = u.Size
		}
		if u.Cost != nil {
			cur["costAmount"], cur["costCurrency"] = u.Cost.Amount, u.Cost.Currency
		}
		m["currentUsage"] = cur
	}
	p := i.created
	if p == nil {
		return
	}
	if p.ParentSessionID != "" {
		m["forkedFromSessionId"] = p.ParentSessionID
		if p.ForkedFromEntry != "" {
			m["forkedFromMessageId"] = p.ForkedFromEntry
		}
	}
	if p.OriginClient != "" {
		m["originatingClient"] = map[string]any{"name": p.OriginClient}
	}
	if p.Interactive != nil {
		m["interactive"] = *p.Interactive
	}
}
