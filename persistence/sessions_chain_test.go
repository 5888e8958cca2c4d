package persistence

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
)

// A session's spawning parent and transformer chain are kept in its row;
// a later snapshot replaces them, and a row without them reads empty.
func TestSessionRowKeepsChildOfAndChain(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	metas := []SessionMeta{{ID: "child", ChildOf: "parent", Transformers: []string{"a", "b"}}, {ID: "plain"}}
	if _, err := s.Commit(ctx, Batch{Metas: metas, Events: events("child", 1, 1)}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Session(ctx, "child")
	if err != nil {
		t.Fatal(err)
	}
	if got.ChildOf != "parent" || !slices.Equal(got.Transformers, []string{"a", "b"}) {
		t.Fatalf("child row %+v", got)
	}
	metas[0].Transformers = []string{"a", "b", "c"}
	if _, err := s.Commit(ctx, Batch{Metas: metas[:1], Events: events("child", 2, 1)}); err != nil {
		t.Fatal(err)
	}
	list, err := s.Sessions(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range list {
		switch {
		case m.ID == "child" && !slices.Equal(m.Transformers, []string{"a", "b", "c"}):
			t.Fatalf("after the update: %+v", m)
		case m.ID == "plain" && (m.ChildOf != "" || m.Transformers != nil):
			t.Fatalf("plain row %+v", m)
		}
	}
	chains, err := s.Chains(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(chains) != 1 || !slices.Equal(chains["child"], []string{"a", "b", "c"}) {
		t.Fatalf("chains %v", chains)
	}
}

// BenchmarkDaemonStartChains is what a daemon reads of a store of 10,000
// sessions, 100 of them with a chain, to restore the chains as it starts:
// Chains against the full listing it would otherwise take.
func BenchmarkDaemonStartChains(b *testing.B) {
	s, err := Open(filepath.Join(b.TempDir(), "troupe.db"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	for i := 0; i < 10_000; i += 500 {
		var batch Batch
		for j := i; j < i+500; j++ {
			m := SessionMeta{ID: fmt.Sprintf("s%05d", j)}
			if j%100 == 0 {
				m.Transformers = []string{"planner"}
			}
			batch.Metas = append(batch.Metas, m)
			batch.Events = append(batch.Events, events(m.ID, 1, 1)...)
		}
		if _, err := s.Commit(ctx, batch); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("Chains", func(b *testing.B) {
		for b.Loop() {
			if c, err := s.Chains(ctx); err != nil || len(c) != 100 {
				b.Fatal(len(c), err)
			}
		}
	})
	b.Run("Sessions", func(b *testing.B) {
		for b.Loop() {
			if l, err := s.Sessions(ctx, ""); err != nil || len(l) != 10_000 {
				b.Fatal(len(l), err)
			}
		}
	})
}
