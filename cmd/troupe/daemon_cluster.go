package main

import (
	"errors"
	"strings"

	"github.com/spf13/pflag"
	"github.com/troupehq/troupe/actors/sessions/cluster"
)

// clusterFlags are `troupe daemon --cluster`'s: the cluster's name, where
// this member's gRPC remote listens, and the automanaged membership (this
// member's address and every member's).
type clusterFlags struct {
	name, bind, membership, peers string
	workspaces                    []string
}

func (f *clusterFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.name, "cluster", "", "join the protoactor cluster of this name: any member serves any session")
	fs.StringVar(&f.bind, "cluster-bind", "127.0.0.1:0", "where this member's cluster remote (gRPC) listens; its host is what other members dial")
	fs.StringVar(&f.membership, "cluster-membership", "", "where this member answers the automanaged membership checks (host:port)")
	fs.StringVar(&f.peers, "cluster-peers", "", "comma-separated membership addresses of every member, this one's included")
	fs.StringSliceVar(&f.workspaces, "cluster-workspaces", nil, "workspace roots this member has (absolute, comma-separated): sessions under one are placed only on members that have it (needs --store)")
}

// options are the daemon's cluster options; the zero Options without
// --cluster.
func (f *clusterFlags) options() (cluster.Options, error) {
	if f.name == "" {
		if f.membership != "" || f.peers != "" || len(f.workspaces) > 0 {
			return cluster.Options{}, errors.New("--cluster-membership, --cluster-peers and --cluster-workspaces need --cluster")
		}
		return cluster.Options{}, nil
	}
	if f.membership == "" || f.peers == "" {
		return cluster.Options{}, errors.New("--cluster needs --cluster-membership and --cluster-peers")
	}
	return cluster.Options{Name: f.name, Bind: f.bind, Membership: f.membership, Peers: strings.Split(f.peers, ","), Workspaces: f.workspaces}, nil
}
