// Package hydracompat checks that Hydra's own clients (hydra-acp's CLI, its
// `acp` editor shim and its TUI) work against `troupe daemon`.
//
// It owns three things:
//
//   - Proxy, a loopback recording proxy put between a Hydra client and the
//     daemon: it forwards every HTTP request and WebSocket connection and
//     writes what went each way as JSON lines (Record), in order, with an
//     exchange number; no Authorization header and no token value is
//     written.
//   - Replay, which plays a recording's client side against a fresh
//     `troupe daemon` and compares what the daemon answers with what it
//     answered when the recording was made, after normalisation
//     (testkit/transcript's Normaliser plus the volatile fields of Hydra's
//     shapes).
//   - The matrix (hydracompat_test.go, build tag hydracompat, run by `make
//     hydra-compat`), which drives the real client through the proxy and
//     records the rows that pass into testdata/<row>.jsonl; the replay test
//     (replay_test.go, part of `make test`) pins them without Node.
//
// It must not import troupe's production packages beyond
// runtime/hydraconfig and runtime/pidfile: it sees the daemon only through
// its wire, as a Hydra client does.
package hydracompat
