// Package metrics owns troupe's Prometheus metrics: the collectors the
// runtime updates where things happen (a commit, a tool call, a model's
// first token, a restart), the collector that walks what is only known at
// scrape time (sessions by state, queued prompts, the store's files), and
// the private registry and handler the daemon serves them from.
//
// The updates are atomic counters, gauges and histograms: an actor calls
// them in its Receive without waiting on anything. A value that needs a
// walk (the live sessions' states, file sizes) is read by Scrape, off every
// mailbox, only when Prometheus asks.
//
// Its collectors live in this package's variables, so that every layer can
// reach them without a handle threaded through its configuration; they are
// registered only in the registry NewRegistry builds, never in
// client_golang's global default one. It must not import the actors, the
// transports or the store: they report to it, it reads them only through
// the functions Sources hands it.
package metrics
