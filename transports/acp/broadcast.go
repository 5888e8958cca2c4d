package acp

import (
	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/transports/acp/pipeline"
)

// connected adds a client connection to the ones Notify reaches.
func (h *Hub) connected(pid *actor.PID) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.conns == nil {
		h.conns = map[*actor.PID]struct{}{}
	}
	h.conns[pid] = struct{}{}
}

func (h *Hub) disconnected(pid *actor.PID) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.conns, pid)
}

// Notify sends every client connection the notification method with
// params (each writes it to its client in turn; none is waited for): an
// agent install's agentcatalog.InstallProgressMethod, which Hydra keys by
// no session.
func (h *Hub) Notify(root *actor.RootContext, method string, params any) {
	h.mu.Lock()
	pids := make([]*actor.PID, 0, len(h.conns))
	for pid := range h.conns {
		pids = append(pids, pid)
	}
	h.mu.Unlock()
	for _, pid := range pids {
		root.Send(pid, &pipeline.Notify{Method: method, Params: params})
	}
}
