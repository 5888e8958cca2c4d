// Package dispatch runs actor mailboxes on long-lived goroutines.
//
// protoactor's default dispatcher starts a goroutine for every mailbox run.
// A session's run calls deep enough (JSON, the fold, the engine) that each
// fresh goroutine grows its stack by copying, which at thousands of
// sessions was a tenth of the process's CPU. A Pool hands each run to an
// idle worker whose stack has already grown, and never makes a run wait:
// with no worker idle it starts one, or past its cap a plain goroutine.
package dispatch

import (
	"sync"

	"github.com/asynkron/protoactor-go/actor"
)

// Pool is an actor.Dispatcher over a bounded set of reused goroutines. Its
// owner calls Close once no actor using it runs any more.
type Pool struct {
	throughput int
	work       chan func()
	stop       chan struct{}

	mu      sync.Mutex // guards workers and closed against Close's Wait
	workers int
	max     int
	closed  bool
	wg      sync.WaitGroup
}

var _ actor.Dispatcher = (*Pool)(nil)

// New returns a pool of at most max workers, each mailbox run processing
// up to throughput messages before yielding (as actor.NewDefaultDispatcher).
func New(throughput, max int) *Pool {
	return &Pool{throughput: throughput, max: max, work: make(chan func()), stop: make(chan struct{})}
}

// Throughput is how many messages a mailbox run processes before yielding.
func (p *Pool) Throughput() int { return p.throughput }

// Schedule runs fn on an idle worker, a new worker, or a new goroutine;
// it never waits.
func (p *Pool) Schedule(fn func()) {
	select {
	case p.work <- fn:
		return
	default:
	}
	p.mu.Lock()
	if p.closed || p.workers >= p.max {
		p.mu.Unlock()
		go fn()
		return
	}
	p.workers++
	p.wg.Add(1)
	p.mu.Unlock()
	go p.worker(fn)
}

func (p *Pool) worker(fn func()) {
	defer p.wg.Done()
	for {
		fn()
		select {
		case fn = <-p.work:
		case <-p.stop:
			return
		}
	}
}

// Close stops the idle workers and waits for the busy ones to finish their
// run; runs scheduled after it get goroutines of their own.
func (p *Pool) Close() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
	p.mu.Unlock()
	close(p.stop)
	p.wg.Wait()
}
