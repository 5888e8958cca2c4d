// Package overrides is the response chain's decisions on a session's agent
// updates as its log records them (update.transformed): which events'
// updates a chain can touch, the fold of a recorded decision into the
// events it covers, and the read of a session's decisions from the store.
//
// Every view of a session's updates applies them the same way, each in its
// own frame: ACP (live and on replay), REST's history, events, transcript
// and bundles (the updates themselves are transports/acpupdate's). A dropped update is not shown; a rewritten one is shown as
// the ACP update object recorded in its place. It does no projection of
// its own and holds no state beyond the map a caller folds into.
package overrides
