package sessions

import (
	"context"

	"github.com/asynkron/protoactor-go/actor"
)

// Cluster is the protoactor cluster a clustered daemon is a member of
// (actors/sessions/cluster implements it); a Client without one serves
// this process's sessions alone, as it always has.
type Cluster interface {
	// Meta reads a session's row on the member hosting it: each member
	// has its own store until the store is shared, so a session's log is
	// where it lives.
	Meta(ctx context.Context, id string) (Meta, error)
	// Delete removes a session from the store of the member hosting it.
	Delete(ctx context.Context, id string) error
	// Status reports the cluster's members and what each hosts.
	Status(ctx context.Context) (ClusterStatus, error)
}

// ClusterStatus is /v1/health's and `troupe daemon status`'s account of
// the cluster.
type ClusterStatus struct {
	Name    string          `json:"name"`
	Self    string          `json:"self"` // this member's address
	Members []ClusterMember `json:"members"`
}

// ClusterMember is one member and how many sessions it hosts now (-1: it
// did not answer).
type ClusterMember struct {
	ID       string `json:"id"`
	Address  string `json:"address"`
	Sessions int    `json:"sessions"`
}

// Clustered is c with its session requests sent to router (the cluster's
// stand-in for the registry, which places each session on a member) and
// the one-session store work a protocol does by id (Meta, Delete) done by
// the session's member.
func (c *Client) Clustered(router *actor.PID, cl Cluster) *Client {
	out := *c
	out.registry, out.cluster = router, cl
	return &out
}

// ClusterStatus is the cluster's status; ok is false for a daemon that is
// not clustered.
func (c *Client) ClusterStatus(ctx context.Context) (st ClusterStatus, ok bool, err error) {
	if c.cluster == nil {
		return ClusterStatus{}, false, nil
	}
	st, err = c.cluster.Status(ctx)
	return st, true, err
}
