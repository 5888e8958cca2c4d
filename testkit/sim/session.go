package sim

import (
	"encoding/json"
	"sync"
	"sync/atomic"
	"time"

	"github.com/troupehq/troupe/transports/jsonrpc"
)

// session is one scenario session: its troupe id, directory, clients and
// the prompts sent to it.
type session struct {
	name string
	spec *SessionSpec
	id   string
	cwd  string

	clients   []*client
	approvals atomic.Int64

	mu      sync.Mutex
	prompts []*promptRec
	byKey   map[string]*promptRec
}

func newSession(name string, spec *SessionSpec, cwd string) *session {
	s := &session{name: name, spec: spec, cwd: cwd, byKey: map[string]*promptRec{}}
	for i := range spec.Clients {
		s.clients = append(s.clients, &client{s: s, idx: i})
	}
	return s
}

func (s *session) addPrompt(p *promptRec) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.prompts = append(s.prompts, p)
	s.byKey[p.key] = p
}

func (s *session) prompt(key string) *promptRec {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.byKey[key]
}

// queuedAdded learns a queued prompt's message id from its notification.
func (s *session) queuedAdded(params json.RawMessage) {
	var q struct {
		MessageID string `json:"messageId"`
		Prompt    []struct {
			Text string `json:"text"`
		} `json:"prompt"`
	}
	if json.Unmarshal(params, &q) != nil || len(q.Prompt) == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.prompts {
		if p.text == q.Prompt[0].Text && p.messageID == "" {
			p.messageID = q.MessageID
		}
	}
}

// answered records a prompt's answer.
func (s *session) answered(p *promptRec, f jsonrpc.Message) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p.answered = time.Now()
	if f.Error != nil {
		p.stop = "error: " + f.Error.Message
		return
	}
	var r struct {
		StopReason string `json:"stopReason"`
	}
	_ = json.Unmarshal(f.Result, &r)
	p.stop = r.StopReason
}

// promptsCopy returns copies of the prompt records.
func (s *session) promptsCopy() []promptRec {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]promptRec, len(s.prompts))
	for i, p := range s.prompts {
		out[i] = *p
	}
	return out
}
