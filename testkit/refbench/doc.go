// Package refbench measures troupe's daemon beside the reference daemon
// (Hydra, hydra-acp 0.1.161, built from its public source) with the same
// external ACP agent behind each and the same clients in front: the test
// kit's scripted agent (testkit/cmd/troupe-acpagent) streaming 20,000
// agent_message_chunks, read by one client and by ten attached clients;
// a fresh client's attach replay of that session; 100 sessions created and
// prompted at once beside 100 bare agents started at once; and each
// daemon's CPU time and peak resident memory.
//
// The daemons alternate, round by round (A B, then B A), each workload on
// a fresh daemon and home, so both see the same machine. The measure is
// reference_test.go, behind the build tag refbench (run by `make
// bench-reference`), because Hydra needs Node: make test never builds it.
//
// It owns no production code and imports none: it sees both daemons only
// through their wire (the /acp WebSocket with the home's token), as any
// client does.
package refbench
