package acpupdate

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

// An update's id (its messageId, the anchor session/attach after_message
// takes) names where it stands in the session's log: the event it shows
// (its seq) and its place among the updates that event shows. It is the
// same live, on replay and in REST, in every process over the same store,
// because the mapping from an event to its updates is: the i-th of an
// event's n recorded updates is "ev-<seq>.<i>", the last "ev-<seq>", which
// is also the anchor of the whole event (an older troupe stamped only
// that one). State updates (State) are not recorded history and carry no
// id: a replay shows their current value once instead.

// EventID is the anchor after the whole event at seq: also the id of its
// last update.
func EventID(seq int64) string { return "ev-" + strconv.FormatInt(seq, 10) }

// UpdateID is the id of the i-th of the n recorded updates of event seq.
func UpdateID(seq int64, i, n int) string {
	if i >= n-1 {
		return EventID(seq)
	}
	return EventID(seq) + "." + strconv.Itoa(i)
}

// Position is where an update stands in a session's log: after every
// update of earlier events, and of its own event after those of lower
// Index. Index is math.MaxInt for an anchor after the whole event.
type Position struct {
	Seq   int64
	Index int
}

// Compare orders positions.
func (p Position) Compare(o Position) int {
	if p.Seq != o.Seq {
		if p.Seq < o.Seq {
			return -1
		}
		return 1
	}
	switch {
	case p.Index < o.Index:
		return -1
	case p.Index > o.Index:
		return 1
	}
	return 0
}

// ParseID reads an update id: the last of an event ("ev-<seq>") stands
// after all of it.
func ParseID(s string) (Position, bool) {
	rest, ok := strings.CutPrefix(s, "ev-")
	if !ok {
		return Position{}, false
	}
	seqText, idxText, indexed := strings.Cut(rest, ".")
	seq, err := strconv.ParseInt(seqText, 10, 64)
	if err != nil || seq <= 0 {
		return Position{}, false
	}
	if !indexed {
		return Position{Seq: seq, Index: math.MaxInt}, true
	}
	i, err := strconv.Atoi(idxText)
	if err != nil || i < 0 {
		return Position{}, false
	}
	return Position{Seq: seq, Index: i}, true
}

// State reports the update kinds that are a session's state rather than
// its history (Hydra's list): shown live as they change, but a replay
// shows their current value once, not every value they had.
func State(kind string) bool {
	switch kind {
	case "session_info_update", "current_mode_update", "config_option_update", "usage_update", "hydra_compaction",
		"current_model_update", "available_commands_update", "available_modes_update":
		return true
	}
	return false
}

// Stamp sets the ids of us, the updates event seq shows in order (all of
// them, also those a given client is not shown: ids count them all). A
// rewrite the response chain recorded (JSON) gets the id too, replacing
// any it had. It returns us, rewrites decoded to objects.
func Stamp(seq int64, us []any) []any {
	n := 0
	for i, u := range us {
		if raw, ok := u.(json.RawMessage); ok {
			var m map[string]any
			if json.Unmarshal(raw, &m) == nil && m != nil {
				us[i] = m
			}
		}
		if kind, _ := Describe(us[i]); !State(kind) {
			n++
		}
	}
	i := 0
	for _, u := range us {
		kind, _ := Describe(u)
		if State(kind) {
			continue
		}
		SetID(u, UpdateID(seq, i, n))
		i++
	}
	return us
}

// SetID sets update u's id (a replay's coalesced update takes the id of
// the last one it stands for).
func SetID(u any, id string) {
	switch u := u.(type) {
	case *Chunk:
		u.MessageID = id
	case *ToolCall:
		u.MessageID = id
	case *PromptReceived:
		u.MessageID = id
	case *TurnComplete:
		u.MessageID = id
	case *PermissionResolved:
		u.MessageID = id
	case *PlanUpdate:
		u.MessageID = id
	case map[string]any:
		u["messageId"] = id
	}
}
