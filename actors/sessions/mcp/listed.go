package mcp

import (
	"context"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// listWait bounds how long a call's result waits for the re-list a
// list_changed notification started.
const listWait = 5 * time.Second

// toolsChanged counts a list_changed notification and tells the actor.
func (c *conn) toolsChanged() {
	c.mu.Lock()
	c.changedGen++
	c.mu.Unlock()
	if c.onToolsChanged != nil {
		c.onToolsChanged()
	}
}

// changed is the count of list_changed notifications so far.
func (c *conn) changed() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.changedGen
}

// markListed records that the tools the actor offers now answer every
// notification up to gen, and wakes the calls waiting for that.
func (c *conn) markListed(gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen <= c.listedGen {
		return
	}
	c.listedGen = gen
	close(c.listed)
	c.listed = make(chan struct{})
}

// waitListed returns once no re-list is outstanding, or after listWait, or
// when ctx or the connection ends.
func (c *conn) waitListed(ctx context.Context) {
	timer := time.NewTimer(listWait)
	defer timer.Stop()
	for {
		c.mu.Lock()
		pending, ch := c.changedGen > c.listedGen, c.listed
		c.mu.Unlock()
		if !pending {
			return
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return
		case <-c.life.Done():
			return
		case <-timer.C:
			return
		}
	}
}

// relist lists the tools again, off the actor's mailbox.
func (c *conn) relist() ([]*sdk.Tool, error) {
	c.mu.Lock()
	cs := c.session
	c.mu.Unlock()
	if cs == nil {
		return nil, c.fail("list tools", errClosed)
	}
	ctx, cancel := context.WithTimeout(c.life, connectTimeout)
	defer cancel()
	listed, err := listTools(ctx, cs)
	if err != nil {
		return nil, c.fail("list tools", err)
	}
	return listed, nil
}
