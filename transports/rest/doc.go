// Package rest is the hydra protocol's REST API, /v1, for `troupe daemon`:
// health, config, agents (troupe's own and runtime/agentcatalog's: their
// install, the registry document and its refresh), and sessions (list, get, create, kill, retitle,
// delete, history, events). Every handler reaches sessions through the
// session facade: writes go to the session's actor, and reads of history
// go to the store, so a session another process hosts is still served,
// read-only. History, events and bundles show a session's events as the
// session/updates transports/acpupdate maps them to, as ACP replays them.
// Errors are `{"error": "..."}` with the protocol's status codes.
//
// Authentication and the /v1/auth routes belong to transports/daemon, which
// mounts this API behind its checks.
//
// Besides those routes: search, fork, bundles, transcript, diff, and what
// Hydra's clients call beyond the reference: collect, compact/status and
// compact.
//
// It reaches sessions only through the session facade and plugins only
// through actors/plugins' messages, never the engine's actors or the store
// directly; transports/imports_test.go keeps it so.
package rest
