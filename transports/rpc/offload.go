package rpc

import (
	"github.com/asynkron/protoactor-go/actor"
)

// offload runs local work (files) in a goroutine, then runs then on the
// connection's mailbox with its result. The work ends by itself: it is a
// file read or write.
func offload[R any](c *conn, fn func() R, then func(R)) {
	f := actor.NewFuture(c.ctx.ActorSystem(), -1)
	root := c.root
	go func() { root.Send(f.PID(), &offloaded[R]{r: fn()}) }()
	c.ctx.ReenterAfter(f, func(res any, _ error) {
		if o, ok := res.(*offloaded[R]); ok {
			then(o.r)
		}
	})
}

type offloaded[R any] struct{ r R }
