package cluster

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	protocluster "github.com/asynkron/protoactor-go/cluster"
	"github.com/troupehq/troupe/actors/sessions"
)

// Placement constraints. Tools, llama-servers and agent processes run on
// the member hosting a session, so a session must be hosted where its
// workspace is. A member started with workspace roots (--cluster-
// workspaces) registers, besides the kind every member hosts ("session"),
// a kind per root ("session@/srv/repos"); the identity lookup places a
// grain only on members that registered its kind. A session whose cwd is
// under a root some member offers is a grain of that root's kind (the
// longest such root); any other is of kind "session", placed on any
// member. A member remembers every root it has seen offered since it
// started: a session under one that no member offers now is refused with
// an error that says so, never run elsewhere. (A member started while
// the only member with a root is down does not know that root; the run's
// own check, workspaceHere, then reports the workspace missing.)

// kindPrefix starts the kind of a workspace root.
const kindPrefix = Kind + "@"

// rootKind is the cluster kind of the sessions under root.
func rootKind(root string) string { return kindPrefix + root }

// errNoWorkspaceMember refuses a session whose workspace root no member
// offers now.
var errNoWorkspaceMember = errors.New("no member of the cluster offers the session's workspace now")

// placement decides the kind of each session's grain. Its roots are those
// seen offered since the member started, offered those the latest
// topology's members offer; a session's kind is cached with the
// generation of both it was decided under.
type placement struct {
	// cwd reads a session's workspace from the shared store ("" when
	// the session has none or the store does not know it).
	cwd func(ctx context.Context, id string) (string, error)

	gen     atomic.Int64
	roots   atomic.Pointer[[]string]        // every root seen offered, longest first
	offered atomic.Pointer[map[string]bool] // the roots offered now
	kinds   sync.Map                        // session id -> decided
}

type decided struct {
	gen  int64
	kind string
}

// update takes the roots the topology's members offer.
func (p *placement) update(t *protocluster.ClusterTopology) {
	offered := map[string]bool{}
	for _, m := range t.Members {
		for _, k := range m.Kinds {
			if root, ok := strings.CutPrefix(k, kindPrefix); ok {
				offered[root] = true
			}
		}
	}
	if old := p.offered.Load(); old != nil && maps.Equal(*old, offered) {
		return
	}
	var roots []string
	if old := p.roots.Load(); old != nil {
		roots = slices.Clone(*old)
	}
	for r := range offered {
		if !slices.Contains(roots, r) {
			roots = append(roots, r)
		}
	}
	// Longest first: a session under /srv/repos/big belongs to that root
	// rather than to /srv/repos.
	slices.SortFunc(roots, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	p.roots.Store(&roots)
	p.offered.Store(&offered)
	p.gen.Add(1)
}

// kind is session id's grain kind; cwd, when known (a session being
// created), spares the store read. It fails when the session's root is
// offered by no member now.
func (p *placement) kind(ctx context.Context, id, cwd string) (string, error) {
	if p == nil {
		return Kind, nil
	}
	gen := p.gen.Load()
	if d, ok := p.kinds.Load(id); ok && d.(decided).gen == gen {
		return p.check(d.(decided).kind)
	}
	if cwd == "" && p.anyRoots() {
		var err error
		if cwd, err = p.cwd(ctx, id); err != nil && !errors.Is(err, sessions.ErrNotFound) {
			return "", fmt.Errorf("cluster: the workspace of session %s: %w", id, err)
		}
	}
	k := Kind
	if root := p.rootOf(cwd); root != "" {
		k = rootKind(root)
	}
	if cwd != "" || !p.anyRoots() {
		p.kinds.Store(id, decided{gen: gen, kind: k})
	}
	return p.check(k)
}

// check fails a root's kind that no member offers now.
func (p *placement) check(kind string) (string, error) {
	root, ok := strings.CutPrefix(kind, kindPrefix)
	if !ok {
		return kind, nil
	}
	if o := p.offered.Load(); o != nil && (*o)[root] {
		return kind, nil
	}
	return "", fmt.Errorf("%w: its workspace is under %s", errNoWorkspaceMember, root)
}

func (p *placement) anyRoots() bool {
	r := p.roots.Load()
	return r != nil && len(*r) > 0
}

// rootOf is the longest known root cwd is in, or "".
func (p *placement) rootOf(cwd string) string {
	r := p.roots.Load()
	if r == nil || cwd == "" {
		return ""
	}
	cwd = filepath.Clean(cwd)
	for _, root := range *r {
		if cwd == root || strings.HasPrefix(cwd, root+string(filepath.Separator)) {
			return root
		}
	}
	return ""
}

// forget drops what is known of session id (it was deleted).
func (p *placement) forget(id string) {
	if p != nil {
		p.kinds.Delete(id)
	}
}
