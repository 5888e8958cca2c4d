package acpupdate

import "github.com/troupehq/troupe/runtime/jsontext"

// AppendChunk appends a text or thinking chunk's update object to dst,
// byte for byte what encoding/json makes of its Chunk, without building
// one: deltas are most of a log, and the frames that carry them (ACP's
// live session/update, REST's history lines) are written by hand. id is
// the update's (UpdateID), acpMessageID the message's it is a chunk of.
func AppendChunk(dst []byte, kind, text, id, acpMessageID string) []byte {
	dst = append(dst, `{"sessionUpdate":`...)
	dst = jsontext.AppendString(dst, kind, true)
	dst = append(dst, `,"content":{"type":"text"`...)
	if text != "" {
		dst = append(dst, `,"text":`...)
		dst = jsontext.AppendString(dst, text, true)
	}
	dst = append(dst, '}')
	if id != "" {
		dst = append(dst, `,"messageId":`...)
		dst = jsontext.AppendString(dst, id, true)
	}
	if acpMessageID != "" {
		dst = append(dst, `,"_meta":{"hydra-acp":{"acpMessageId":`...)
		dst = jsontext.AppendString(dst, acpMessageID, true)
		dst = append(dst, "}}"...)
	}
	return append(dst, '}')
}
