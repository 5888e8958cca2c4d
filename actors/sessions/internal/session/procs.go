package session

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"

	"github.com/troupehq/troupe/runtime/proc"
)

// toolMarker is the marker the processes of tool call call of run run
// carry (proc.MarkerEnv): an HMAC of the session, run and call ids under
// the store's process key (Config.ProcKey). Only a troupe holding the key
// makes it, so a tool.process event that came from anywhere else (an
// imported bundle, `troupe append`) matches no process, and a marker read
// from one call's process proves nothing about another's. Without a key
// there is no marker, and recovery signals nothing.
func toolMarker(key []byte, session, run, call string) string {
	if len(key) == 0 {
		return ""
	}
	mac := hmac.New(sha256.New, key)
	for _, id := range []string{session, run, call} {
		mac.Write([]byte(id))
		mac.Write([]byte{0})
	}
	return hex.EncodeToString(mac.Sum(nil))
}

// killLeftover kills what a crash left running of an open tool call's
// process group, if the log's record of it proves the group still is the
// one this host's troupe started for the call (proc.KillProven); anything
// less leaves it alone.
func (s *session) killLeftover(runID string, o openTool) {
	if o.proof.PID == 0 {
		return
	}
	err := proc.KillProven(o.proof, toolMarker(s.cfg.ProcKey, s.cfg.ID, runID, o.id))
	switch {
	case err == nil:
		s.log.Info("killed what a restart left of a tool call", "tool_call", o.id, "pgid", o.proof.PID)
	case errors.Is(err, proc.ErrGone):
	default:
		s.log.Warn("recorded process group left alone", "tool_call", o.id, "pgid", o.proof.PID, "reason", err)
	}
}
