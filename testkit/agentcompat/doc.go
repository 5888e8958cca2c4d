// Package agentcompat checks that real ACP agents published on npm
// (qwen-code's `qwen --acp`, opencode's `opencode acp`) work as session
// backends of `troupe daemon`, and pins what they exchanged with it.
//
// It owns three things:
//
//   - the matrix (matrix_test.go, build tag agentcompat, run by hand with
//     `make acp-agents`): per agent, a real `troupe daemon` subprocess whose
//     home's config.json names the agent behind testkit/cmd/troupe-acptee,
//     the agents' model being testkit/llmserver in this process, scripted
//     per row; two testkit/acpclient clients drive the rows (prompt, a tool
//     call whose permission one client answers while the other watches,
//     cancel, kill and load, daemon restart) and a matrix is printed;
//   - Recording, the daemon↔agent stdio the tee wrote (one file per start
//     of the agent), read, normalised (ids the agent or the daemon makes,
//     paths, timestamps) and written into testdata/<agent>/ with UPDATE=1;
//   - the replay test (replay_test.go, part of `make test`, no Node), which
//     plays each recording's agent side to a fresh daemon and checks that
//     troupe sends the agent what it sent when the recording was made.
//
// It must not import troupe's production packages: it sees the daemon
// only through its wire and the agent only through its stdio.
package agentcompat
