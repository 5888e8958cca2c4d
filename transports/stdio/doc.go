// Package stdio owns what every JSON-lines protocol over stdin/stdout
// shares: reading framed lines (split on \n only, a trailing \r dropped, a
// last line without newline accepted, a size limit that yields an error
// rather than a crash), the reader goroutine that sends them to a
// transport actor (ReadInput), and the one writer actor that owns stdout,
// a child of its transport, so that lines are never interleaved. Lines
// reach it as messages or, without a message per line, through a Queue;
// it writes what is queued in a few large writes and flushes whenever
// nothing more is queued, so no line waits in a buffer.
//
// It knows nothing of any protocol's messages (transports/rpc,
// transports/jsonstream do) and never writes anything but whole lines.
//
// Like transports/rpc and transports/jsonstream it imports only the session
// facade, the event schema and the transports supervisor's contract;
// transports/imports_test.go keeps it so.
package stdio
