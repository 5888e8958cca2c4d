package pipeline

import (
	"strings"
	"sync"
)

// released are the permission requests a session's chain let through to
// the clients (session\x00toolCallId), while its link runs.
type released struct {
	mu  sync.Mutex
	set map[string]bool
}

func (r *released) add(session, toolCallID string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.set[session+"\x00"+toolCallID] = true
}

func (r *released) has(session, toolCallID string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.set[session+"\x00"+toolCallID]
}

// forget drops session's, when its link ends.
func (r *released) forget(session string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for k := range r.set {
		if strings.HasPrefix(k, session+"\x00") {
			delete(r.set, k)
		}
	}
}

// Held reports a permission request kept from the clients until the
// session's chain lets it through.
func (p *Pipeline) Held(session, toolCallID string) bool {
	if p.Chain(session, "request:session/request_permission") == nil {
		return false
	}
	return !p.released.has(session, toolCallID)
}
