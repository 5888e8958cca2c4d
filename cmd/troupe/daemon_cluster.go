package main

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/spf13/pflag"
	"github.com/troupehq/troupe/actors/sessions/cluster"
)

// clusterFlags are `troupe daemon --cluster`'s: the cluster's name, where
// this member's gRPC remote listens, and its membership: the etcd the
// members keep the topology in, or the automanaged provider's (this
// member's address and every member's).
type clusterFlags struct {
	name, bind, etcd, membership, peers string
	workspaces                          []string
}

func (f *clusterFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.name, "cluster", "", "join the protoactor cluster of this name: any member serves any session")
	fs.StringVar(&f.bind, "cluster-bind", "127.0.0.1:0", "where this member's cluster remote (gRPC) listens; its host is what other members dial")
	fs.StringVar(&f.etcd, "cluster-etcd", "", "comma-separated etcd endpoints (http://host:2379) the members keep the topology in, instead of --cluster-membership and --cluster-peers")
	fs.StringVar(&f.membership, "cluster-membership", "", "where this member answers the automanaged membership checks (host:port)")
	fs.StringVar(&f.peers, "cluster-peers", "", "comma-separated membership addresses of every member, this one's included")
	fs.StringSliceVar(&f.workspaces, "cluster-workspaces", nil, "workspace roots this member has (absolute, comma-separated): sessions under one are placed only on members that have it (needs --store)")
}

// options are the daemon's cluster options; the zero Options without
// --cluster.
func (f *clusterFlags) options() (cluster.Options, error) {
	if f.name == "" {
		if f.etcd != "" || f.membership != "" || f.peers != "" || len(f.workspaces) > 0 {
			return cluster.Options{}, errors.New("--cluster-etcd, --cluster-membership, --cluster-peers and --cluster-workspaces need --cluster")
		}
		return cluster.Options{}, nil
	}
	opts := cluster.Options{Name: f.name, Bind: f.bind, Workspaces: f.workspaces}
	if f.etcd != "" {
		if f.membership != "" || f.peers != "" {
			return cluster.Options{}, errors.New("--cluster-etcd is the membership: give it without --cluster-membership and --cluster-peers (the automanaged provider's)")
		}
		eps, err := etcdEndpoints(f.etcd)
		if err != nil {
			return cluster.Options{}, err
		}
		opts.Etcd = eps
		return opts, nil
	}
	if f.membership == "" || f.peers == "" {
		return cluster.Options{}, errors.New("--cluster needs its membership: --cluster-etcd, or --cluster-membership and --cluster-peers")
	}
	opts.Membership, opts.Peers = f.membership, strings.Split(f.peers, ",")
	return opts, nil
}

// etcdEndpoints are --cluster-etcd's endpoints: host:port, or URLs of the
// schemes etcd's client dials.
func etcdEndpoints(list string) ([]string, error) {
	var eps []string
	for ep := range strings.SplitSeq(list, ",") {
		ep = strings.TrimSpace(ep)
		if ep == "" {
			return nil, fmt.Errorf("--cluster-etcd %q: an empty endpoint", list)
		}
		if strings.Contains(ep, "://") {
			u, err := url.Parse(ep)
			if err != nil || u.Host == "" && u.Path == "" {
				return nil, fmt.Errorf("--cluster-etcd: endpoint %q is not a URL with a host", ep)
			}
			// etcd's client takes no credentials from a URL, and the flag
			// is recorded in the pid file and on command lines.
			if u.User != nil {
				return nil, fmt.Errorf("--cluster-etcd: endpoint %q carries user information, which etcd's client does not use; give the endpoint alone", u.Redacted())
			}
			switch u.Scheme {
			case "http", "https", "unix", "unixs":
			default:
				return nil, fmt.Errorf("--cluster-etcd: endpoint %q: etcd is reached over http, https, unix or unixs", ep)
			}
		}
		eps = append(eps, ep)
	}
	return eps, nil
}
