// Package cluster makes a daemon a member of a protoactor cluster
// (github.com/asynkron/protoactor-go/cluster over its gRPC remote): each
// session is a grain of kind "session" whose identity is the session id,
// placed on a member by the cluster's identity lookup (disthash), with
// membership from protoactor's etcd provider (etcd.go) or its automanaged
// one (automanaged.go). A member's front ends reach
// any session through the sessions facade, whose registry stand-in here
// (the router) sends each request to the session's grain; the grain hands
// it to its own member's sessions registry. Every message between members
// is a protobuf message of clusterpb; a subscription crosses as a pair of
// relays.
//
// With a shared store (PostgreSQL, --store) any member can host any
// session: a grain the topology moves away stops its session here so the
// new owner can claim the lease (grain.go), a request refused because the
// lease is still held elsewhere is tried again (router.go), and each
// member wakes the orphans a crashed or frozen member left in the store
// (reclaim.go), sessions are placed on members that have their workspace
// (placement.go); the store's lease epoch fences a member that comes back
// after its sessions were taken over. Without one each member has its own
// store: a session's log lives on the member hosting it, and a member's
// loss leaves its sessions unreachable until it returns.
//
// It owns the cluster's wiring, the membership providers' set-up, the
// grain, the router, the relays, the reclaimer, the placement and the
// conversions; it must not read or fold session logs (the session actor
// does) nor hold session state, nor write to etcd beyond what the
// provider does.
package cluster
