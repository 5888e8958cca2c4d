// Package stdio owns what every JSON-lines protocol over stdin/stdout
// shares: reading framed lines (split on \n only, a trailing \r dropped, a
// last line without newline accepted, a size limit that yields an error
// rather than a crash), the reader goroutine that sends them to a
// transport actor (ReadInput), and the one writer actor that owns stdout,
// a child of its transport, so that lines are never interleaved and each
// is flushed as it is written.
//
// It knows nothing of any protocol's messages (transports/rpc,
// transports/jsonstream do) and never writes anything but whole lines.
package stdio
