// Package jsonstream speaks the aionrs JSON stream protocol
// (`troupe --json-stream`): one conversation per process over stdin and
// stdout, one JSON object per line.
//
// It owns the protocol's vocabulary (the commands it decodes and the events
// it writes), the projection of a session's canonical events into those
// events (a projector on the view of transports/projection), and the
// transport actor that joins the two (under the runtime's transports
// supervisor): it reads commands in a goroutine it owns, turns them into
// session requests made through the facade's Async (answers on its
// mailbox), and writes through its child, the stdout writer actor of
// transports/stdio.
//
// It must not touch the session's log or state except through session
// requests: everything it shows is projected from committed events, so a
// resumed process shows what the log holds, never what this one remembers.
// It never writes to stdout itself and never logs there.
//
// It imports only the session facade, the event schema, the transports
// supervisor's contract and its sibling transports; transports/imports_test.go
// keeps it so.
package jsonstream
