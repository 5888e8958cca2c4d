package persistence

import (
	"context"
	"testing"
)

// BenchmarkContractCommitOneEvent is one session's one-event commit under
// its lease, the latency a prompt's first update waits on, on each
// database (PostgreSQL started by pgtest, without fsync).
func BenchmarkContractCommitOneEvent(b *testing.B) {
	for _, be := range backends {
		b.Run(be.name, func(b *testing.B) {
			s, err := OpenTarget(be.target(b), Options{Owner: ThisProcess("bench")})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			ctx := context.Background()
			out, err := s.Commit(ctx, Batch{Claims: []string{"s"}, Metas: []SessionMeta{{ID: "s"}}, Events: events("s", 1, 1)})
			if err != nil {
				b.Fatal(err)
			}
			epoch := out.Epochs["s"]
			seq := 2
			for b.Loop() {
				if _, err := s.Commit(ctx, Batch{Events: events("s", seq, 1), Epochs: map[string]int64{"s": epoch}}); err != nil {
					b.Fatal(err)
				}
				seq++
			}
		})
	}
}
