// Package engine assembles a session engine from troupe's configuration:
// models.yml and the command-line selection (which provider, which model),
// OpenAI-compatible clients per server, the tool style per server (asking
// llama-server's /props when the model says auto), thinking levels, cost,
// the built-in tools and the skills catalog.
//
// It builds; it does not run anything. Sessions and turns use what it builds.
//
// It owns the model catalog clients ask (sessions.Models) and the llama
// provider (local.go): a config name whose server the engine asks the
// servers supervisor for at each request (LocalServers, set by the
// command: the daemon's supervisor, or boot.LazyServers starting one on
// first use), so a restarted server on a new port is found and a request
// waits while it loads; with servers set, the catalog lists each config as
// model llama/<config> for clients to choose.
package engine
