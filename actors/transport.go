package actors

import (
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors/transports"
)

// Transport is a transport running under the transports supervisor.
type Transport struct {
	PID  *actor.PID
	done chan transports.Done
}

// Done delivers the transport's one Done: it finished, crashed, or was
// stopped by shutdown's transports stage (which has sent it by the time
// Shutdown returns).
func (t *Transport) Done() <-chan transports.Done { return t.done }

// StartTransport runs a transport (built by its package's Props) under the
// transports supervisor, named name. Every transport's Receive is wrapped in
// the panic log and Options.TransportMiddleware.
func (rt *Runtime) StartTransport(props *actor.Props, name string) (*Transport, error) {
	props.Configure(actor.WithReceiverMiddleware(rt.transportMW...))
	done := make(chan transports.Done, 1)
	res, err := rt.System.Root.RequestFuture(rt.transports, &transports.Start{Props: props, Name: name, Done: done}, 10*time.Second).Result()
	if err != nil {
		return nil, fmt.Errorf("start transport %s: %w", name, err)
	}
	st, ok := res.(*transports.Started)
	if !ok {
		return nil, fmt.Errorf("start transport %s: unexpected reply %T", name, res)
	}
	if st.Err != nil {
		return nil, st.Err
	}
	return &Transport{PID: st.PID, done: done}, nil
}
