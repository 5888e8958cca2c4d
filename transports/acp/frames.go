package acp

import (
	"strconv"

	"github.com/troupehq/troupe/runtime/jsontext"
	"github.com/troupehq/troupe/transports/acpupdate"
)

// appendChunkFrame appends the session/update notification of one
// message chunk, byte for byte what json.Marshal makes of
// jsonrpc.NewNotification("session/update", &updateParams{…, &chunk{…}}): the
// hot path of a streaming reply, built without reflection.
func appendChunkFrame(dst []byte, sessionID, kind, text, messageID string, seq, recordedAt int64) []byte {
	dst = append(dst, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":`...)
	dst = jsontext.AppendString(dst, sessionID, true)
	dst = append(dst, `,"update":`...)
	// A delta shows one update: its id is its event's.
	dst = acpupdate.AppendChunk(dst, kind, text, acpupdate.EventID(seq), messageID)
	dst = append(dst, `,"_meta":{"hydra-acp":{"messageId":"ev-`...)
	dst = strconv.AppendInt(dst, seq, 10)
	dst = append(dst, `","recordedAt":`...)
	dst = strconv.AppendInt(dst, recordedAt, 10)
	return append(dst, "}}}}"...)
}
