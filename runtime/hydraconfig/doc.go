// Package hydraconfig reads what troupe honours of a Hydra home's
// config.json, and computes the digest Hydra's clients compare with a
// daemon's /v1/health before they talk to it.
//
// A Hydra client (hydra-acp 0.1.161) pointed at troupe with HYDRA_ACP_HOME
// set to troupe's home reads that home's config.json and refuses a daemon
// whose configDigest differs from its own ("config changed since daemon
// started — run hydra-acp daemon restart"), which would lead its user to
// replace troupe with Hydra's daemon. The digest covers the settings a
// Hydra daemon must restart for — daemon.host, port, publicHost, tls —
// after Hydra's defaults are applied; everything else is left out, as
// Hydra leaves it out.
//
// It is a library: it reads one file and knows nothing of the daemon.
package hydraconfig
