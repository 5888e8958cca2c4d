// Package jsontext is troupe's one hand-written JSON code, for the hot
// paths where reflection costs too much: strings written byte for byte as
// encoding/json writes them (a streamed delta, a replayed chunk), strings
// unescaped as it reads them, and the one JSON scanner: a Scanner for a
// reader that walks what it is given (a streamed model frame in
// runtime/llm/openai, an external agent's text chunk in
// actors/sessions/internal/upstream), and its primitives SkipSpace and
// ScanString for a reader of one known flat shape that must stay inlined
// (transports/projection's message.delta). It owns only that: no types
// of troupe's, no I/O.
//
// Every writer and reader is fuzzed against encoding/json.
//
// It imports no troupe package and knows no protocol's shapes beyond what
// its callers ask it to scan.
package jsontext
