// Package agentcatalog knows which external ACP agents a daemon can run and
// how to start each: the agents a home's configuration names (Hydra's
// config.json "agents" map, read unchanged, and config.yml's "agents"
// section with the same fields) and, where config.json's registry.url is
// set, the ACP registry document's (cached in the home as registry.json,
// Hydra's file). It owns resolving an agent id to a launch (command, args,
// environment), the install state of each agent, and installing one: an
// npx package with npm into $home/agents/<id>/<version>, a binary archive
// for this platform (sha256 verified, extracted without leaving its
// directory); uvx agents resolve when they start.
//
// It never starts an agent itself — the session's agent process actor
// does — never reads a command from anything a client sent (ids only), and
// reaches the network only for a registry URL, an npm registry or an
// archive the home's configuration (or the configured registry) names.
package agentcatalog
