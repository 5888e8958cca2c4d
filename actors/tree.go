package actors

import (
	"slices"
	"strings"

	"github.com/asynkron/protoactor-go/actor"
)

// LiveTree lists the id of every actor sys runs, sorted. An id is its
// parent's id, a slash and its name ("troupe/sessions/<id>/run$7"), so the
// list is the tree. protoactor's own processes (futures, the event stream,
// dead letters, its guardians) are left out.
func LiveTree(sys *actor.ActorSystem) []string {
	var ids []string
	for _, bucket := range sys.ProcessRegistry.LocalPIDs.LocalPIDs {
		for _, id := range bucket.Keys() {
			if protoactorOwn(id) {
				continue
			}
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

func protoactorOwn(id string) bool {
	return id == "eventstream" || id == "deadletter" ||
		strings.HasPrefix(id, "future$") || strings.HasPrefix(id, "guardian$")
}

// LiveTree is the runtime's live tree (LiveTree).
func (rt *Runtime) LiveTree() []string { return LiveTree(rt.System) }
