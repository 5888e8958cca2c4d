package stdio_test

import (
	"bufio"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/transports/stdio"
)

// gatedPipe is a real pipe whose writes are counted; the first one waits
// for open, so that lines queue behind it.
type gatedPipe struct {
	w      *os.File
	open   chan struct{}
	writes atomic.Int64
}

func (g *gatedPipe) Write(p []byte) (int, error) {
	if g.writes.Add(1) == 1 {
		<-g.open
	}
	return g.w.Write(p)
}

// readLines reads the pipe's lines into a channel until it closes.
func readLines(t *testing.T, r *os.File) <-chan string {
	t.Helper()
	out := make(chan string, 1<<16)
	go func() {
		defer close(out)
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			out <- sc.Text()
		}
	}()
	return out
}

func newPipe(t *testing.T) (*gatedPipe, <-chan string) {
	t.Helper()
	r, w, err := os.Pipe()
	testkit.NoError(t, err)
	t.Cleanup(func() { w.Close(); r.Close() })
	return &gatedPipe{w: w, open: make(chan struct{})}, readLines(t, r)
}

// Lines queued while the writer is busy go out together, in a few large
// writes rather than one per line, and in order.
func TestQueueWritesABurstAtOnce(t *testing.T) {
	sys := actor.NewActorSystem()
	defer sys.Shutdown()
	pipe, lines := newPipe(t)
	q := &stdio.Queue{}
	w := sys.Root.Spawn(stdio.QueueWriterProps(pipe, q))
	const n, size = 2000, 100
	line := make([]byte, size)
	for i := range n {
		copy(line, fmt.Sprintf("%0*d", size, i))
		q.Line(line) // reused: the queue copies
	}
	close(pipe.open)
	res, err := sys.Root.RequestFuture(w, &stdio.Flush{}, 5*time.Second).Result()
	testkit.NoError(t, err)
	testkit.NoError(t, res.(*stdio.Flushed).Err)
	for i := range n {
		testkit.Equal(t, <-lines, fmt.Sprintf("%0*d", size, i))
	}
	// The first line alone, then the rest in 64 KiB writes.
	if max := int64(1 + (n*(size+1))/(64<<10) + 1); pipe.writes.Load() > max {
		t.Fatalf("%d writes for %d lines, want at most %d", pipe.writes.Load(), n, max)
	}
}

// A line with nothing after it is written at once: no Flush is needed.
func TestQueueHoldsNoLineBack(t *testing.T) {
	sys := actor.NewActorSystem()
	defer sys.Shutdown()
	pipe, lines := newPipe(t)
	close(pipe.open)
	q := &stdio.Queue{}
	sys.Root.Spawn(stdio.QueueWriterProps(pipe, q))
	for i := range 3 {
		q.Line([]byte(fmt.Sprint("line ", i)))
		select {
		case got := <-lines:
			testkit.Equal(t, got, fmt.Sprint("line ", i))
		case <-time.After(5 * time.Second):
			t.Fatalf("line %d not written", i)
		}
	}
}

// Lines queued from many goroutines come out whole, each producer's in
// its order, and a stop asked while they are being written loses none.
func TestQueueConcurrentSendersAndStop(t *testing.T) {
	sys := actor.NewActorSystem()
	defer sys.Shutdown()
	pipe, lines := newPipe(t)
	q := &stdio.Queue{}
	w := sys.Root.Spawn(stdio.QueueWriterProps(pipe, q))
	var wg sync.WaitGroup
	const producers, each = 8, 500
	for g := range producers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				q.Line(fmt.Appendf(nil, "%d %d", g, i))
			}
		}()
	}
	wg.Wait()
	stopped := sys.Root.StopFuture(w)
	close(pipe.open)
	testkit.NoError(t, stopped.Wait())
	next := make([]int, producers)
	for range producers * each {
		var g, i int
		l := <-lines
		if _, err := fmt.Sscanf(l, "%d %d", &g, &i); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		testkit.Equal(t, i, next[g])
		next[g]++
	}
}
