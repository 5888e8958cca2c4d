package queue_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors/sessions/internal/queue"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/testkit"
)

func ev(t *testing.T, kind event.Kind, p any) event.Event {
	b, err := json.Marshal(p)
	testkit.NoError(t, err)
	return event.Event{Kind: kind, Payload: b}
}

func ids(s queue.State) []string {
	var out []string
	for _, e := range s.Waiting.Entries() {
		out = append(out, e.MessageID)
	}
	return out
}

func TestStateFold(t *testing.T) {
	var s queue.State
	for _, e := range []event.Event{
		ev(t, event.PromptQueued, event.PromptQueuedPayload{MessageID: "a"}),
		ev(t, event.PromptQueued, event.PromptQueuedPayload{MessageID: "b"}),
		ev(t, event.PromptQueued, event.PromptQueuedPayload{MessageID: "c", Position: "head"}),
		ev(t, event.PromptQueued, event.PromptQueuedPayload{MessageID: "d", Position: "after", AfterMessageID: "a"}),
		ev(t, event.RunStarted, event.RunStartedPayload{RunID: "c"}),
		ev(t, event.PromptCancelled, event.PromptChangedPayload{MessageID: "d"}),
	} {
		testkit.NoError(t, s.Apply(e))
	}
	testkit.DeepEqual(t, ids(s), []string{"a", "b"})
	testkit.Equal(t, s.Running, "c")
	testkit.NoError(t, s.Apply(ev(t, event.RunEnded, event.RunEndedPayload{RunID: "c"})))
	testkit.Equal(t, s.Running, "")
}

// Messages a turn took but could not deliver (a cancel raced the answer)
// come back to the head of the queue, in order.
func TestReturnedMessagesGoBackToTheHead(t *testing.T) {
	sys := actor.NewActorSystem()
	defer sys.Shutdown()
	session := sys.Root.Spawn(actor.PropsFromFunc(func(actor.Context) {}))
	st := queue.State{Running: "run"}
	st.Waiting.Restore([]event.Prompt{
		{MessageID: "s1", Delivery: event.DeliverySteer}, {MessageID: "p1", Delivery: event.DeliveryPrompt},
	})
	q := sys.Root.Spawn(queue.Props(queue.Config{Session: session, State: st}))
	res, err := sys.Root.RequestFuture(q, &queue.TakeMessages{RunID: "run", Steer: true}, 5*time.Second).Result()
	testkit.NoError(t, err)
	taken := res.(*queue.Messages)
	testkit.DeepEqual(t, taken.IDs, []string{"s1"})
	sys.Root.Send(q, &queue.Returned{Messages: *taken})
	res, err = sys.Root.RequestFuture(q, &queue.GetState{}, 5*time.Second).Result()
	testkit.NoError(t, err)
	testkit.DeepEqual(t, ids(res.(*queue.StateReply).State), []string{"s1", "p1"})
}
