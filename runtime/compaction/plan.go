package compaction

import (
	"errors"
	"fmt"

	"github.com/troupehq/troupe/runtime/llm"
)

// ErrNothingToCompact means no cut leaves something to summarise: the
// conversation already fits in KeepRecentTokens, or it has no place to cut
// that keeps tool calls with their results.
var ErrNothingToCompact = errors.New("nothing to compact")

// ErrNoEntryID means the entry chosen as the first kept one has no ID, so
// the compaction entry could not point at it.
var ErrNoEntryID = errors.New("entry has no id")

// Entry is one message of the session log with its stable entry ID.
type Entry struct {
	ID      string
	Message llm.Message
}

// Cut is where Plan splits the conversation. ToSummarise and Kept are
// consecutive sub-slices of the entries given to Plan (capped, so appending
// to ToSummarise cannot overwrite Kept).
type Cut struct {
	// FirstKeptEntryID is the ID of Kept[0], recorded in the compaction
	// entry as firstKeptEntryId.
	FirstKeptEntryID string
	ToSummarise      []Entry
	Kept             []Entry
	// TokensBefore is Estimate over all the entries. Callers that know the
	// provider's count (EstimateWithUsage) should report that instead.
	TokensBefore int
	// SplitTurn says the cut falls inside a turn: Kept starts with an
	// assistant message and the start of its turn, the user message
	// included, ends ToSummarise.
	SplitTurn bool
}

// Plan chooses where to cut entries, the messages in context after any
// previous summary, oldest first, without the system prompt and without the
// previous summary itself (that goes to SummaryRequest).
//
// Walking back from the newest entry, it finds where the kept part reaches
// s.KeepRecentTokens, then cuts at the first user message at or after that
// point, so whole turns are kept and the kept part stays within the budget.
// When no user message follows (the last turn alone exceeds the budget) it
// splits that turn at the first assistant message at or after the point,
// as pi does. When not even that exists (the last message is a tool result
// bigger than the budget) it cuts at the nearest valid place before the
// point, keeping more than the budget rather than nothing.
//
// A cut never lands on a tool result, nor between an assistant's tool calls
// and their results. It ignores s.Enabled: a manual compact plans anyway.
func Plan(entries []Entry, s Settings) (Cut, error) {
	tokens := make([]int, len(entries))
	total := 0
	for i, e := range entries {
		tokens[i] = estimateMessage(e.Message)
		total += tokens[i]
	}

	at := budgetStart(tokens, s.keepRecentTokens())
	if at < 0 {
		return Cut{}, fmt.Errorf("plan compaction of %d entries (%d tokens): %w", len(entries), total, ErrNothingToCompact)
	}
	cut := chooseCut(entries, validCuts(entries), at)
	if cut <= 0 {
		return Cut{}, fmt.Errorf("plan compaction of %d entries: no valid cut: %w", len(entries), ErrNothingToCompact)
	}

	first := entries[cut]
	if first.ID == "" {
		return Cut{}, fmt.Errorf("plan compaction: first kept entry %d: %w", cut, ErrNoEntryID)
	}
	return Cut{
		FirstKeptEntryID: first.ID,
		ToSummarise:      entries[:cut:cut],
		Kept:             entries[cut:],
		TokensBefore:     total,
		SplitTurn:        first.Message.Role != llm.RoleUser,
	}, nil
}

// budgetStart returns the newest index i at which tokens[i:] reaches keep,
// or -1 when everything fits.
func budgetStart(tokens []int, keep int) int {
	acc := 0
	for i := len(tokens) - 1; i >= 0; i-- {
		acc += tokens[i]
		if acc >= keep {
			return i
		}
	}
	return -1
}

// chooseCut applies Plan's preference order from index at. Index 0 is never
// chosen because it would leave nothing to summarise; -1 means no cut.
func chooseCut(entries []Entry, valid []bool, at int) int {
	from := max(at, 1)
	for i := from; i < len(entries); i++ {
		if valid[i] && entries[i].Message.Role == llm.RoleUser {
			return i
		}
	}
	for i := from; i < len(entries); i++ {
		if valid[i] {
			return i
		}
	}
	for i := min(at, len(entries)) - 1; i >= 1; i-- {
		if valid[i] {
			return i
		}
	}
	return -1
}
