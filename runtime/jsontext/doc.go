// Package jsontext writes JSON strings by hand, byte for byte as
// encoding/json does, for the hot paths that build protocol lines and
// stored payloads without reflection (a streamed delta, a replayed chunk).
// It owns only that: no types, no decoding, no I/O.
package jsontext
