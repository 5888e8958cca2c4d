package pipeline

import (
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors/actorlog"
	"github.com/troupehq/troupe/transports/jsonrpc"
)

// Messages between connections and chain runs. A chain run never blocks:
// it asks a transformer's connection to call the transformer (Call) and
// gets the answer back as a message (Answer).
type (
	// Call asks a process's connection to send its process a request;
	// the answer goes to Reply as an Answer carrying Step.
	Call struct {
		Method string
		Params any
		Reply  *actor.PID
		Step   int
	}
	// Answer is a process's answer to a Call (or a client's to a request
	// sent for a Call's sender).
	Answer struct {
		Step int
		M    jsonrpc.Message
	}
	// Notify asks a connection to send its peer a notification.
	Notify struct {
		Method string
		Params any
	}
	// Discharge is a transformer's message/emit answering its processing
	// claim Token, for the chain run holding it (Pipeline.Claim).
	Discharge struct {
		Token    string
		Envelope json.RawMessage
	}
	// KeepAlive extends processing claim Token.
	KeepAlive struct{ Token string }

	claimExpired   struct{ step, gen int }
	transformerMsg struct {
		Token     string          `json:"token"`
		Phase     string          `json:"phase"`
		Method    string          `json:"method"`
		Direction string          `json:"direction"`
		SessionID string          `json:"sessionId"`
		Envelope  json.RawMessage `json:"envelope"`
	}
	transformerAction struct {
		Action  string          `json:"action"`
		Payload json.RawMessage `json:"payload"`
	}
)

// Done is a chain run's outcome, for the actor that started it (its
// parent); the connections' other children that answer one of its
// requests report with it too.
type Done struct {
	Key      int64
	Action   string          // continue | stop
	Envelope json.RawMessage // continue: the envelope, maybe rewritten; stop: the synthesized reply (may be nil)
	Response json.RawMessage // another child's: the answer
	Err      *jsonrpc.Error
	// Discharged: the stop is a processing claim's discharge, whose
	// envelope replaces the message (a response chain shows it).
	Discharged bool
}

// Spec is one message's trip through a session's chain.
type Spec struct {
	Pipeline  *Pipeline
	Session   string
	Method    string
	Phase     string // request (default) | response
	Direction string
	Envelope  json.RawMessage
	Names     []string
	Pos       int    // the first transformer to ask
	Skip      string // the transformer that emitted the message: never asked again (loop safety)
	Key       int64  // Done's
}

// chainRun is one chain run, a child of the actor it answers.
type chainRun struct {
	Spec
	step   int // numbers calls, so a late answer is told apart
	token  string
	parked bool
	gen    int // numbers the claim timer's arming
	timer  *time.Timer

	settled bool
	early   *Discharge // a discharge that came before the processing answer
}

// ChainProps is a chain run's: it asks each transformer of s.Names from
// s.Pos that intercepts the message in turn, then reports Done to its
// parent.
func ChainProps(s Spec) *actor.Props {
	return actor.PropsFromProducer(func() actor.Actor { return &chainRun{Spec: s} })
}

func (r *chainRun) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *actor.Started:
		r.next(ctx)
	case *Answer:
		if m.Step == r.step && !r.parked && r.token != "" {
			r.answered(ctx, m.M)
		}
	case *Discharge:
		switch {
		case m.Token != r.token:
		case r.parked:
			r.finish(ctx, Done{Action: "stop", Envelope: m.Envelope, Discharged: true})
		default:
			r.early = m // the transformer discharged before answering processing
		}
	case *KeepAlive:
		if m.Token == r.token && r.parked {
			r.arm(ctx)
		}
	case *claimExpired:
		if m.step == r.step && m.gen == r.gen && r.token != "" {
			r.expired(ctx)
		}
	case *actor.Stopping:
		r.cleanupClaim()
	case *actor.Stopped, *actor.Restarting, *actor.Terminated:
	default:
		actorlog.Unhandled(actorlog.For(ctx, "chain", r.Session), ctx)
	}
}

// next asks the next transformer that intercepts the message, or settles
// the chain with the envelope as it now is.
func (r *chainRun) next(ctx actor.Context) {
	r.cleanupClaim()
	phase := cmp.Or(r.Phase, "request")
	what := phase + ":" + r.Method
	for ; r.Pos < len(r.Names); r.Pos++ {
		name := r.Names[r.Pos]
		if name == r.Skip {
			continue
		}
		conn, ok := r.Pipeline.transformers.intercepting(name, what)
		if !ok {
			continue // not connected (restarting) or not interested: fail-open
		}
		r.step++
		r.token = newToken("chain-")
		r.Pipeline.claims.park(r.token, ctx.Self())
		ctx.Send(conn, &Call{Method: "hydra-acp/transformer/message", Reply: ctx.Self(), Step: r.step,
			Params: transformerMsg{Token: r.token, Phase: phase, Method: r.Method, Direction: r.Direction,
				SessionID: r.Session, Envelope: r.Envelope}})
		r.arm(ctx)
		return
	}
	// Settled with continue: the originator delivers the message.
	r.finish(ctx, Done{Action: "continue", Envelope: r.Envelope})
}

// arm (re)starts the claim timer: it bounds both the transformer's answer
// and a processing claim.
func (r *chainRun) arm(ctx actor.Context) {
	if r.timer != nil {
		r.timer.Stop()
	}
	r.gen++
	root, self, msg := ctx.ActorSystem().Root, ctx.Self(), &claimExpired{step: r.step, gen: r.gen}
	r.timer = time.AfterFunc(r.Pipeline.claimTimeout(), func() { root.Send(self, msg) })
}

func (r *chainRun) answered(ctx actor.Context, m jsonrpc.Message) {
	var act transformerAction
	if m.Error != nil || json.Unmarshal(m.Result, &act) != nil {
		r.Pos++ // a transformer that fails is passed over: fail-open
		r.next(ctx)
		return
	}
	switch act.Action {
	case "stop":
		r.finish(ctx, Done{Action: "stop", Envelope: act.Payload})
	case "processing":
		if r.early != nil && r.early.Token == r.token {
			r.finish(ctx, Done{Action: "stop", Envelope: r.early.Envelope, Discharged: true})
			return
		}
		r.parked = true
		r.arm(ctx)
	default: // continue, the default
		if len(act.Payload) > 0 && !jsonrpc.IsNull(act.Payload) {
			r.Envelope = act.Payload
		}
		r.Pos++
		r.next(ctx)
	}
}

// expired: the transformer neither answered nor discharged in time. A
// parked claim is announced abandoned to every attached client; either way
// the chain goes on from the next transformer (fail-open).
func (r *chainRun) expired(ctx actor.Context) {
	if r.parked {
		n := &Notify{Method: "hydra-acp/transformer/abandoned_request", Params: map[string]any{
			"sessionId": r.Session, "token": r.token, "transformerName": r.Names[r.Pos]}}
		for _, c := range r.Pipeline.Watching(r.Session) {
			ctx.Send(c, n)
		}
	}
	r.Pos++
	r.next(ctx)
}

func (r *chainRun) finish(ctx actor.Context, d Done) {
	if r.settled {
		return
	}
	r.settled = true
	d.Key = r.Key
	ctx.Send(ctx.Parent(), &d)
	ctx.Stop(ctx.Self())
}

func (r *chainRun) cleanupClaim() {
	if r.timer != nil {
		r.timer.Stop()
		r.timer = nil
	}
	if r.token != "" {
		r.Pipeline.claims.unpark(r.token)
		r.token = ""
	}
	r.parked, r.early = false, nil
}

// newToken makes a random claim token with prefix.
func newToken(prefix string) string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}
