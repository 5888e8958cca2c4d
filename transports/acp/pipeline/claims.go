package pipeline

import (
	"sync"

	"github.com/asynkron/protoactor-go/actor"
)

// claims are the chain runs waiting on a transformer, by the token of the
// message they sent it: a processing claim's discharge or keep_alive
// (message/emit, connection/keep_alive) finds its run here.
type claims struct {
	mu      sync.Mutex
	byToken map[string]*actor.PID
}

func (c *claims) park(token string, run *actor.PID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.byToken[token] = run
}

func (c *claims) unpark(token string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.byToken, token)
}

// Claim is the chain run holding token, to send it Discharge or
// KeepAlive.
func (c *claims) Claim(token string) (*actor.PID, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	pid, ok := c.byToken[token]
	return pid, ok
}
