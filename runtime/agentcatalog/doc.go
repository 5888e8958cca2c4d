// Package agentcatalog knows which external ACP agents a daemon can run and
// how to start each: the agents a home's configuration names (Hydra's
// config.json "agents" map, read unchanged) and, where configured, the ACP
// registry's. It owns resolving an agent id to a launch (command, args,
// environment); it never starts a process itself — the session's agent
// process actor does — and never reads anything a client sent as a command.
package agentcatalog
