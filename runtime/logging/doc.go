// Package logging builds troupe's loggers: log/slog with tint for people
// (or JSON), always on stderr since stdout is protocol in the stdio
// modes, and the handler protoactor's own records go through (lib=
// protoactor, their own level floor).
//
// It is a library: it never writes to stdout and knows nothing of actors.
package logging
