// Package testkit helps test troupe and programs that embed it: boot a
// runtime on a temporary home, collect a session's events, inject faults
// into actors, build and run the real troupe binary and kill it at a chosen
// point, and small generic assertions.
//
// Sub-packages: llmserver is a scripted OpenAI-compatible LLM server;
// transcript runs protocol golden tests (txtar transcripts) against the
// real binary.
//
// Everything here takes a testing.TB and cleans up after itself, except
// Launch, for harnesses with a lifecycle of their own.
package testkit
