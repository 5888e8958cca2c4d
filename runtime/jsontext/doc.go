// Package jsontext is troupe's one hand-written JSON code, for the hot
// paths where reflection costs too much: strings written byte for byte as
// encoding/json writes them (a streamed delta, a replayed chunk), strings
// unescaped as it reads them, and the one general JSON Scanner (a streamed
// model frame in runtime/llm/openai). transports/projection keeps its own
// reader of one flat payload shape, measured faster there. It owns only
// that: no types of troupe's, no I/O.
package jsontext
