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
//   - with UPDATE=1, the daemon↔agent stdio the tee wrote (one file per
//     start of the agent, see acprec), the run's directories normalised,
//     written into testdata/<agent>/;
//   - the replay test (replay_test.go, part of `make test`, no Node), which
//     runs the same rows on a fresh daemon whose agent is
//     testkit/cmd/troupe-acpreplay answering from testdata, and fails on
//     any message troupe sends the agent that differs from the recorded
//     one.
//
// It sees the daemon only through its wire (ACP WebSocket, REST) and the
// agent only through its stdio; it imports no troupe package outside
// testkit.
package agentcompat
