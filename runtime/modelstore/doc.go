// Package modelstore is troupe's local model files: $TROUPE_HOME/models/
// <owner>/<repo>/<file>.gguf, as Hugging Face names them. It lists repos,
// shows a repo's files with their GGUF headers, removes files or repos,
// and downloads files from a Hugging-Face-compatible endpoint: resumable
// (a <file>.part grows across attempts through HTTP ranges), verified by
// size and, when the endpoint gives one, by sha256, with progress reports.
//
// A download is resumable (a .part file, HTTP ranges) and verified by size
// and sha256 (X-Linked-Size, X-Linked-Etag), with monotonic progress.
//
// It imports nothing of troupe but runtime/gguf, and knows nothing of
// servers or sessions.
package modelstore
