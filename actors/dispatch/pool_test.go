package dispatch

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// Every scheduled run runs, past the cap too, and Close leaves no worker.
func TestPoolRunsEverythingAndCloses(t *testing.T) {
	before := runtime.NumGoroutine()
	p := New(10, 4)
	var ran atomic.Int64
	var wg sync.WaitGroup
	const n = 2000
	wg.Add(n)
	for range n {
		p.Schedule(func() {
			defer wg.Done()
			ran.Add(1)
		})
	}
	wg.Wait()
	if got := ran.Load(); got != n {
		t.Fatalf("ran %d of %d", got, n)
	}
	p.mu.Lock()
	workers := p.workers
	p.mu.Unlock()
	if workers > 4 {
		t.Fatalf("%d workers, cap 4", workers)
	}
	p.Close()
	done := make(chan struct{})
	p.Schedule(func() { close(done) }) // after Close: a goroutine of its own
	<-done
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if g := runtime.NumGoroutine(); g > before {
		t.Fatalf("%d goroutines after Close, %d before", g, before)
	}
}

// Workers are reused: a run that blocks does not stop others from running.
func TestPoolNeverWaits(t *testing.T) {
	p := New(10, 1)
	defer p.Close()
	release := make(chan struct{})
	p.Schedule(func() { <-release }) // takes the only worker
	done := make(chan struct{})
	p.Schedule(func() { close(done) })
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("a run waited for the busy worker")
	}
	close(release)
}

// Actors on the pool process their messages in order.
func TestPoolRunsActors(t *testing.T) {
	p := New(300, 8)
	defer p.Close()
	sys := actor.NewActorSystem()
	defer sys.Shutdown()
	const n = 10_000
	got := make(chan int, n)
	pid := sys.Root.Spawn(actor.PropsFromFunc(func(c actor.Context) {
		if v, ok := c.Message().(int); ok {
			got <- v
		}
	}, actor.WithDispatcher(p)))
	for i := range n {
		sys.Root.Send(pid, i)
	}
	for i := range n {
		if v := <-got; v != i {
			t.Fatalf("message %d arrived as %d", i, v)
		}
	}
	sys.Root.Stop(pid)
}
