package session

import (
	"encoding/json"
	"maps"
	"slices"
	"time"

	"github.com/samber/lo"
	"github.com/troupehq/troupe/persistence"
	"github.com/troupehq/troupe/persistence/event"
)

// State is the fold of a session's events. Apply is pure, so a state can be
// rebuilt from the log at any time and tested without actors.
type State struct {
	ID             string
	LastSeq        int64
	Created        bool
	Title          string
	Cwd            string
	AdditionalDirs []string
	MCPServers     json.RawMessage
	Settings       event.Settings
	ParentID       string
	ForkedFromSeq  int64
	// ChildOf is the session a transformer spawned this one for.
	ChildOf string
	// Transformers is the daemon's transformer chain: session.created's,
	// then each transformer.attached. Replaced, never changed in place.
	Transformers []string
	Usage        event.Usage
	// ContextUsed is the context the last step used (input, cache read
	// and output), 0 after a compaction that ended well.
	ContextUsed int64
	ActiveRun   string
	Runs        int
	Queued      int // prompts waiting (steer and follow-up included)
	CreatedAt   time.Time
	UpdatedAt   time.Time
	Interactive *bool
	// OriginTransport is session.created's: the protocol that made it.
	OriginTransport string
	// Attention is the flag set of the last attention.changed.
	Attention []event.AttentionFlag

	// MCPStatus is each MCP server's last mcp.status. It is replaced, never
	// changed in place, so a State handed out stays as it was.
	MCPStatus map[string]string
}

// Apply folds one event in. The payload was validated before the event was
// assigned a seq, so a decode error means a corrupt log.
func (s *State) Apply(e event.Event) error {
	p, err := event.DecodePayload(e.Kind, e.Payload)
	if err != nil {
		return err
	}
	s.apply(e, p)
	return nil
}

func (s *State) apply(e event.Event, p any) {
	s.LastSeq = e.Seq
	s.UpdatedAt = e.RecordedAt
	switch p := p.(type) {
	case *event.MCPStatusPayload:
		m := maps.Clone(s.MCPStatus)
		if m == nil {
			m = map[string]string{}
		}
		m[p.Server] = p.Status
		s.MCPStatus = m
	case *event.CreatedPayload:
		s.Created = true
		s.CreatedAt = e.RecordedAt
		s.Cwd, s.Title, s.AdditionalDirs, s.MCPServers = p.Cwd, p.Title, p.AdditionalDirs, p.MCPServers
		s.ParentID, s.ForkedFromSeq = p.ParentSessionID, p.ForkedFromSeq
		s.ChildOf, s.Transformers = p.ChildOf, slices.Clip(p.Transformers)
		s.Interactive, s.OriginTransport = p.Interactive, p.OriginTransport
		if p.Interactive == nil && p.OriginClient == HydraCatClient {
			// hydra's `cat` says nothing at session/new; its sessions are
			// not interactive, as hydra infers from the client's name.
			s.Interactive = new(false)
		}
		s.Settings = s.Settings.Merge(p.Settings)
	case *event.Settings:
		s.Settings = s.Settings.Merge(*p)
		if p.Title != nil {
			s.Title = *p.Title
		}
	case *event.StepEndedPayload:
		s.ContextUsed = p.Usage.Input + p.Usage.CacheRead + p.Usage.Output
	case *event.CompactionPayload:
		if e.Kind == event.CompactionEnded && p.Error == "" && !p.Aborted {
			s.ContextUsed = 0
		}
	case *event.RunStartedPayload:
		s.ActiveRun = p.RunID
		s.Runs++
	case *event.RunEndedPayload:
		s.Usage.Add(p.Usage)
		if s.ActiveRun == p.RunID {
			s.ActiveRun = ""
		}
	case *event.PromptQueuedPayload:
		s.Queued++
		if !p.Ancillary && (s.Interactive == nil || !*s.Interactive) {
			// hydra's promotion: a prompt from a person makes the session
			// interactive (shown in default lists), an undecided one or
			// one that was not (a fork, cat's, a transformer's worker a
			// person took up); machine traffic is ancillary.
			s.Interactive = new(true)
		}
	case *event.PromptChangedPayload:
		if e.Kind == event.PromptCancelled {
			s.Queued--
		}
	case *event.PromptDeliveredPayload:
		s.Queued--
	case *event.AttentionPayload:
		s.Attention = p.Apply(s.Attention, e.RecordedAt.UnixMilli())
	case *event.TransformerAttachedPayload:
		if p.Name != "" && !slices.Contains(s.Transformers, p.Name) {
			s.Transformers = append(slices.Clip(s.Transformers), p.Name)
		}
	}
	if p, ok := p.(*event.RunStartedPayload); ok && p.RunID != "" {
		s.Queued--
	}
	if s.Queued < 0 {
		s.Queued = 0
	}
}

// metaChanging reports whether an event of kind k changes the snapshot row
// beyond last_seq.
func metaChanging(k event.Kind) bool {
	return k == event.SessionCreated || k == event.SessionSettingsChanged || k == event.RunEnded ||
		k == event.TransformerAttached
}

// Meta is the snapshot row for this state.
func (s *State) Meta(status string) persistence.SessionMeta {
	return persistence.SessionMeta{
		ID: s.ID, Title: s.Title, Cwd: s.Cwd, Status: status,
		Provider: lo.FromPtr(s.Settings.Provider), Model: lo.FromPtr(s.Settings.Model),
		Usage: s.Usage, ParentID: s.ParentID, ForkedFromSeq: s.ForkedFromSeq, Interactive: s.Interactive,
		ChildOf: s.ChildOf, Transformers: s.Transformers,
		Agent: lo.FromPtr(s.Settings.Agent), UpstreamSessionID: lo.FromPtr(s.Settings.UpstreamSessionID),
		ContextUsed: s.ContextUsed,
	}
}
