// Package compaction decides when and where to shrink a conversation that is
// outgrowing the model's context window, and writes the text that does it:
// the request asking a model for a structured summary of the older part, and
// the conversation that replaces it (the summary, then the recent messages
// kept verbatim). It follows pi/indusagi compaction: the compact command and
// auto_compaction_* events of specs/indusagi-rpc-mode.md, and the compaction
// entry {summary, firstKeptEntryId, tokensBefore} of the session tree in
// reference/stdio-protocols.md (sections 1.7 and 1.10).
//
// It owns only arithmetic and text. It must not do I/O, call a model, write
// the session log or know about actors: the agent loop calls ShouldCompact
// after a reply, Plan to choose the cut, sends SummaryRequest to a model,
// appends the compaction entry to the log and carries on with Apply's
// messages.
package compaction
