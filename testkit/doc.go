// Package testkit helps test troupe and programs that embed it: boot a
// runtime on a temporary home, collect a session's events, inject faults
// into actors, build and run the real troupe binary and kill it at a chosen
// point, and small generic assertions.
//
// Sub-packages: llmserver is a scripted OpenAI-compatible LLM server;
// transcript runs protocol golden tests (txtar transcripts) against the
// real binary; subprocess runs a program tied to no test, for harnesses
// with a lifecycle of their own (transcript, troupe sim).
//
// Everything here takes a testing.TB and cleans up after itself. troupe sim
// is part of the production binary, so nothing it imports (testkit/sim,
// llmserver, subprocess) may import this package or package testing.
//
// The built binaries: the troupe binary, and BuildTroupeTags(t,
// "troupe_faults"), a build whose transports panic on a marked input line
// and whose daemon's sessions panic once on a named message type, for
// crash tests; testkit/cmd/troupe-mcptest (BuildMCPTestServer), the
// plugin program testkit/cmd/troupe-plugin (BuildPlugin) and the fake
// llama-server testkit/cmd/fake-llama-server (BuildFakeLlamaServer). Start
// runs a program through testkit/subprocess and stops it when the test
// ends. Its subpackages: llmserver (a scripted LLM server, over HTTP and
// in-process as an llm.Provider), transcript (protocol golden tests;
// -update rewrites them), scale with cmd/troupe-scale (the scale
// benchmark), sim (troupe sim's scenarios), subprocess, acpclient, and
// daemontest (the daemon started in the test's own process);
// cmd/daemontests counts cmd/troupe's tests by how they start the daemon;
// coldstore seeds a store with many cold sessions through persistence (the
// cold-list tests and BenchmarkDaemonColdSessions).
// hydracompat (Hydra's own clients against troupe daemon: a recording
// proxy, make hydra-compat's matrix, the recordings' replay).
//
// Production code must not import it: the binary links no testing
// (cmd/troupe's TestBinaryLinksNoTesting).
package testkit
