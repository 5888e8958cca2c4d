package cluster

import (
	"context"
	"errors"
	"strings"
	"testing"

	protocluster "github.com/asynkron/protoactor-go/cluster"
	"github.com/troupehq/troupe/actors/sessions"
)

func topology(kinds ...[]string) *protocluster.ClusterTopology {
	t := &protocluster.ClusterTopology{}
	for _, k := range kinds {
		t.Members = append(t.Members, &protocluster.Member{Kinds: k})
	}
	return t
}

// A session's kind is its longest offered root's, read from the store once
// and decided again when the roots change; a root that was offered and is
// no more refuses the session, naming it.
func TestPlacementKindFollowsTheWorkspaceRoots(t *testing.T) {
	cwds := map[string]string{"deep": "/srv/repos/big/x", "shallow": "/srv/repos/y", "else": "/home/me"}
	reads := 0
	p := &placement{cwd: func(_ context.Context, id string) (string, error) {
		reads++
		if c, ok := cwds[id]; ok {
			return c, nil
		}
		return "", sessions.ErrNotFound
	}}
	ctx := context.Background()
	kind := func(id, cwd string) string {
		t.Helper()
		k, err := p.kind(ctx, id, cwd)
		if err != nil {
			t.Fatalf("kind of %s: %v", id, err)
		}
		return k
	}

	// No roots anywhere: every session is of kind session, read from nowhere.
	p.update(topology([]string{Kind}, []string{Kind}))
	if k := kind("deep", ""); k != Kind || reads != 0 {
		t.Fatalf("without roots: %s after %d reads", k, reads)
	}

	p.update(topology([]string{Kind, rootKind("/srv/repos")}, []string{Kind, rootKind("/srv/repos/big")}))
	for id, want := range map[string]string{"deep": rootKind("/srv/repos/big"), "shallow": rootKind("/srv/repos"), "else": Kind, "unknown": Kind} {
		if k := kind(id, ""); k != want {
			t.Fatalf("%s: kind %s, want %s", id, k, want)
		}
	}
	before := reads
	kind("deep", "")
	if reads != before {
		t.Fatal("a decided kind was read from the store again")
	}
	if k := kind("new", "/srv/repos/big/new"); k != rootKind("/srv/repos/big") || reads != before {
		t.Fatalf("a created session's cwd: %s after %d reads", k, reads-before)
	}
	if k := kind("sibling", "/srv/repos/bigger"); k != rootKind("/srv/repos") {
		t.Fatalf("a path that only starts like a root: %s", k)
	}

	// The member with /srv/repos/big goes: its sessions are refused.
	p.update(topology([]string{Kind, rootKind("/srv/repos")}))
	_, err := p.kind(ctx, "deep", "")
	if !errors.Is(err, errNoWorkspaceMember) || !strings.Contains(err.Error(), "/srv/repos/big") {
		t.Fatalf("a root no member offers: %v", err)
	}
	if k := kind("shallow", ""); k != rootKind("/srv/repos") {
		t.Fatalf("a root still offered: %s", k)
	}
	// It comes back.
	p.update(topology([]string{Kind, rootKind("/srv/repos")}, []string{Kind, rootKind("/srv/repos/big")}))
	if k := kind("deep", ""); k != rootKind("/srv/repos/big") {
		t.Fatalf("the root back: %s", k)
	}
}
