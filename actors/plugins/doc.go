// Package plugins runs the daemon's extensions and transformers (the hydra
// protocol's "Extension and transformer plumbing") as supervised child
// processes: a supervisor per kind (Props) with one child actor per
// registered name, each owning its program through actors/process.
//
// A program gets a fresh per-process token at every run, in HYDRA_ACP_TOKEN
// and TROUPE_TOKEN (and the daemon's /acp URL in HYDRA_ACP_URL and
// TROUPE_ACP_URL); the Tokens registry, shared with the daemon's auth,
// accepts it for as long as that run lives and names the process (kind and
// name) to the /acp connection that presents it. A program that dies on its
// own is "crashed" and started again after Backoff·2^n (capped at
// MaxBackoff, about a minute; back to Backoff once a run lived
// StableAfter). Stop suppresses restarts until the next Start or Restart.
// Nothing blocks a mailbox: delays are timers that send a message.
//
// Each member actor keeps its program's token, status and backoff
// restarts; the plugins' part of config.yml is kept here too. A plugin's
// per-process token may read the plugin lists but not manage plugins
// (register, start, stop, delete answer 403).
//
// It reaches its programs only through actors/process and knows nothing of
// sessions: a program talks to the daemon over /acp like any client.
package plugins
