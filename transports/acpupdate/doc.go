// Package acpupdate is the one mapping from a session's canonical events to
// ACP session/update objects: the update shapes (chunks, tool calls with
// their kinds, titles, status and content, usage, modes, config options,
// titles, turn boundaries, permission outcomes, compaction) and, in Mapper,
// which updates each event kind is shown as to a client attached from the
// start, and each update's id (ids.go: from its event's seq and its place
// among the event's updates, so the same in every view and every process).
// Every view of a session's updates goes through it: ACP live and on
// replay, REST's history, events and bundles (and so the terminal client and
// every other ACP client, which render what ACP sends).
//
// It owns the shapes and the mapping. It does not frame updates (ACP's
// session/update params and _meta, REST's history lines), apply the
// response chain's decisions (transports/overrides says what they are; each
// view applies them in its own frame), fold events (the View of
// transports/projection does) or do I/O.
//
// Its table over every event kind is transports/acpupdate/acpupdatetest.
package acpupdate
