package acp

import (
	"crypto/rand"
	"encoding/hex"
	"slices"
	"sync"

	"github.com/asynkron/protoactor-go/actor"
)

// ClientInfo names an attached client (connectedClients' entries).
type ClientInfo struct {
	ClientID string `json:"clientId"`
	Name     string `json:"name,omitempty"`
	Version  string `json:"version,omitempty"`
}

// Hub knows which clients are attached to which session, across the
// connections of one process: connectedClients and attachedClients. It is
// shared by the connection actors and the REST API, and only ever held for
// a map update, so no Receive waits on it.
type Hub struct {
	mu       sync.Mutex
	sessions map[string][]ClientInfo
	frames   map[string]*sharedFrames
	conns    map[*actor.PID]struct{} // client connections, for Notify
}

// NewHub returns an empty hub.
func NewHub() *Hub {
	return &Hub{sessions: map[string][]ClientInfo{}, frames: map[string]*sharedFrames{}}
}

// sharedFrames is session id's frame cache, held until release.
func (h *Hub) sharedFrames(id string) *sharedFrames {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.frames[id]
	if s == nil {
		s = &sharedFrames{}
		h.frames[id] = s
	}
	s.attached()
	return s
}

func (h *Hub) releaseFrames(id string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if s := h.frames[id]; s != nil {
		if s.detached() {
			delete(h.frames, id)
		}
	}
}

// join adds c to session id; false when that client id is attached already.
func (h *Hub) join(id string, c ClientInfo) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if slices.ContainsFunc(h.sessions[id], func(o ClientInfo) bool { return o.ClientID == c.ClientID }) {
		return false
	}
	h.sessions[id] = append(h.sessions[id], c)
	return true
}

func (h *Hub) leave(id, clientID string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.sessions[id] = slices.DeleteFunc(h.sessions[id], func(o ClientInfo) bool { return o.ClientID == clientID })
	if len(h.sessions[id]) == 0 {
		delete(h.sessions, id)
	}
}

// Attached is how many clients are attached to session id.
func (h *Hub) Attached(id string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.sessions[id])
}

// Clients lists the clients attached to session id, in attach order.
func (h *Hub) Clients(id string) []ClientInfo {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.sessions[id])
}

// newID makes a random id with prefix (msg- ids are the shape transcripts
// normalise).
func newID(prefix string) string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}
