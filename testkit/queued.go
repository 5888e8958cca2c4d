package testkit

import (
	"testing"

	"github.com/troupehq/troupe/actors/queue"
)

// QueuedID checks a Prompt reply and returns the message id.
func QueuedID(t testing.TB, res any) string {
	t.Helper()
	q, ok := res.(*queue.Enqueued)
	if !ok {
		t.Fatalf("prompt reply %T, want *queue.Enqueued", res)
	}
	NoError(t, q.Err)
	return q.MessageID
}
