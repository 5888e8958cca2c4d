package persistence

import (
	"context"
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
}
