package persistence

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit/pgtest"
)

// Two members claiming and releasing the same sessions at once, each
// naming them in its own order, never fail a commit: the lease rows are
// locked in one order, and a transaction PostgreSQL still ends for a
// deadlock runs again. (Before, a cluster's rejoin failed sessions with
// "deadlock detected".)
func TestPostgresConcurrentClaimsNeverDeadlock(t *testing.T) {
	target := pgtest.Database(t)
	ttl := 50 * time.Millisecond // leases pass between the two all the time
	stores := []*Store{
		openTarget(t, target, Options{Owner: Owner{ID: "a", PID: 1, Host: "elsewhere-a", Command: "troupe a"}, LeaseTTL: ttl}),
		openTarget(t, target, Options{Owner: Owner{ID: "b", PID: 2, Host: "elsewhere-b", Command: "troupe b"}, LeaseTTL: ttl}),
	}
	ids := make([]string, 24)
	for i := range ids {
		ids[i] = fmt.Sprintf("s%02d", i)
	}
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for n, s := range stores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(n), 7))
			for range 20 {
				claims := append([]string(nil), ids...)
				r.Shuffle(len(claims), func(i, j int) { claims[i], claims[j] = claims[j], claims[i] })
				claims = claims[:8]
				out, err := s.Commit(ctx, Batch{Claims: claims})
				if err != nil {
					errs <- fmt.Errorf("store %d: claim: %w", n, err)
					return
				}
				var release []string
				for id := range out.Epochs {
					release = append(release, id)
				}
				r.Shuffle(len(release), func(i, j int) { release[i], release[j] = release[j], release[i] })
				if _, err := s.Commit(ctx, Batch{Releases: release, Renew: true}); err != nil {
					errs <- fmt.Errorf("store %d: release: %w", n, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}
