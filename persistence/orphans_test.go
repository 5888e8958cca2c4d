package persistence

import (
	"context"
	"slices"
	"testing"
	"time"
)

// A live session whose holder went silent is an orphan to every other
// process, never to its holder; a cold one never is, and a taken-over one
// stops being one.
func TestContractOrphansAreLiveSessionsWithNoLiveHolder(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		target := b.target(t)
		ttl := 300 * time.Millisecond
		a := openTarget(t, target, Options{Owner: Owner{ID: "a", PID: 1, Host: "elsewhere", Command: "troupe a"}, LeaseTTL: ttl})
		bb := openTarget(t, target, Options{Owner: ThisProcess("test b"), LeaseTTL: ttl})
		ctx := context.Background()
		orphans := func(s *Store) []string {
			t.Helper()
			ids, err := s.Orphans(ctx)
			if err != nil {
				t.Fatal(err)
			}
			slices.Sort(ids)
			return ids
		}

		mustCommit(t, a, Batch{Claims: []string{"live", "cold"}, Metas: []SessionMeta{{ID: "live"}, {ID: "cold"}},
			Events: append(events("live", 1, 1), events("cold", 1, 1)...)})
		mustCommit(t, a, Batch{Statuses: []StatusChange{{SessionID: "cold", Status: StatusCold}}, Releases: []string{"cold"}})
		if got := orphans(bb); len(got) != 0 {
			t.Fatalf("orphans while a's heartbeat is fresh: %v", got)
		}
		time.Sleep(2 * ttl) // a goes silent
		if got := orphans(bb); !slices.Equal(got, []string{"live"}) {
			t.Fatalf("orphans after a went silent: %v, want [live]", got)
		}
		if got := orphans(a); len(got) != 0 {
			t.Fatalf("a's own sessions are orphans to a: %v", got)
		}
		mustCommit(t, bb, Batch{Claims: []string{"live"}})
		if got := orphans(bb); len(got) != 0 {
			t.Fatalf("orphans after b took over: %v", got)
		}
	})
}
