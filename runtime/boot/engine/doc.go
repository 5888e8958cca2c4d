// Package engine assembles a session engine from troupe's configuration:
// models.yml and the command-line selection (which provider, which model),
// OpenAI-compatible clients per server, the tool style per server (asking
// llama-server's /props when the model says auto), thinking levels, cost,
// the built-in tools and the skills catalog.
//
// It builds; it does not run anything. Sessions and turns use what it builds.
package engine
