// Package servers runs llama-server processes as actors: a supervisor
// (Props) with one child per config name, each child owning its program
// through actors/process.
//
// A child starts llama-server with the config's explicit command line
// (llamaconfig.Config.Args; a free port is picked when the config has
// none), logs its output, and polls GET /health until it answers 200 (503
// means loading); only then does it answer Start and report "started".
// Stop sends SIGTERM, then SIGKILL after the grace ("stop_timeout"); an
// exit by SIGABRT after our SIGTERM is a clean stop, as the 2025 builds
// abort on SIGTERM. A program that dies on its own is started again after
// an exponential backoff (Options.Backoff), which resets once a run stayed
// healthy for Options.StableAfter. Nothing here blocks a mailbox: health
// polls run in a goroutine the child owns and cancels, and delays are
// timers that send a message.
//
// With Options.Outlive the programs survive a crash of troupe; Reclaim, at
// the next boot, returns those still running with a matching config as
// Adopt messages, and the config's actor owns the program again through
// process.AdoptProps (watched, since it is not troupe's child).
//
// Every status change goes to Options.OnEvent, from the actor: it must not
// block. The supervisor keeps each server's last Info, so List is answered
// without asking the children.
//
// Each run's pid, group and port are recorded in the store's llama_servers
// table (migration 0003) by a recorder goroutine the supervisor owns; at
// boot, Reclaim adopts, or ends, the servers of a troupe process that died.
package servers
