package compaction

import (
	"errors"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/troupehq/troupe/runtime/llm"
)

func TestPlan(t *testing.T) {
	keep100 := Settings{KeepRecentTokens: 100}
	tests := []struct {
		name      string
		entries   []Entry
		s         Settings
		wantErr   error
		summarise []string
		kept      []string
		split     bool
	}{
		{
			name:    "empty",
			s:       keep100,
			wantErr: ErrNothingToCompact,
		},
		{
			name:    "everything fits",
			entries: []Entry{user(t, "u1", 40), asst(t, "a1", 40)},
			s:       keep100,
			wantErr: ErrNothingToCompact,
		},
		{
			name:    "one message bigger than the budget",
			entries: []Entry{user(t, "u1", 500)},
			s:       keep100,
			wantErr: ErrNothingToCompact,
		},
		{
			// From the end: a3 30, u3 60, a2 110; the next user is u3.
			name: "cuts at the user message after the budget point",
			entries: []Entry{
				user(t, "u1", 50), asst(t, "a1", 50),
				user(t, "u2", 50), asst(t, "a2", 50),
				user(t, "u3", 30), asst(t, "a3", 30),
			},
			s:         keep100,
			summarise: []string{"u1", "a1", "u2", "a2"},
			kept:      []string{"u3", "a3"},
		},
		{
			name: "budget reached exactly on a user message",
			entries: []Entry{
				user(t, "u1", 50), asst(t, "a1", 50),
				user(t, "u2", 60), asst(t, "a2", 40),
			},
			s:         keep100,
			summarise: []string{"u1", "a1"},
			kept:      []string{"u2", "a2"},
		},
		{
			// The whole conversation is one turn: it is split at the first
			// assistant message after the budget point, never at a result.
			name: "big single turn is split after its tool results",
			entries: []Entry{
				user(t, "u1", 10),
				asst(t, "a1", 10, "c1"), result(t, "t1", "c1", 50),
				asst(t, "a2", 10, "c2"), result(t, "t2", "c2", 60),
				asst(t, "a3", 20),
			},
			s:         keep100,
			summarise: []string{"u1", "a1", "t1"},
			kept:      []string{"a2", "t2", "a3"},
			split:     true,
		},
		{
			name: "parallel calls keep all their results together",
			entries: []Entry{
				user(t, "u1", 10),
				asst(t, "a1", 10, "c1", "c2"), result(t, "t1", "c1", 50), result(t, "t2", "c2", 50),
				asst(t, "a2", 10, "c3"), result(t, "t3", "c3", 60),
			},
			s:         keep100,
			summarise: []string{"u1", "a1", "t1", "t2"},
			kept:      []string{"a2", "t3"},
			split:     true,
		},
		{
			// u2 arrived between a1's calls and the last of their results;
			// cutting there would orphan t2.
			name: "no cut between a call and its late result",
			entries: []Entry{
				user(t, "u0", 10), asst(t, "a0", 10),
				user(t, "u1", 10), asst(t, "a1", 10, "c1", "c2"), result(t, "t1", "c1", 10),
				user(t, "u2", 10), result(t, "t2", "c2", 10),
				asst(t, "a2", 85),
			},
			s:         keep100,
			summarise: []string{"u0", "a0", "u1", "a1", "t1", "u2", "t2"},
			kept:      []string{"a2"},
			split:     true,
		},
		{
			name: "result with an unknown id pairs with the latest calls",
			entries: []Entry{
				user(t, "u0", 10), asst(t, "a0", 10),
				user(t, "u1", 10), asst(t, "a1", 10, "c1"),
				user(t, "u2", 10), result(t, "t1", "zz", 10),
				asst(t, "a2", 85),
			},
			s:         keep100,
			summarise: []string{"u0", "a0", "u1", "a1", "u2", "t1"},
			kept:      []string{"a2"},
			split:     true,
		},
		{
			// Local models often number calls per turn, so "c0" recurs; t1
			// answers a1, not a0, and u1 stays a valid cut.
			name: "reused call ids pair with the newest call",
			entries: []Entry{
				user(t, "u0", 10), asst(t, "a0", 10, "c0"), result(t, "t0", "c0", 10),
				user(t, "u1", 10), asst(t, "a1", 30, "c0"), result(t, "t1", "c0", 40),
				asst(t, "a1b", 20),
			},
			s:         keep100,
			summarise: []string{"u0", "a0", "t0"},
			kept:      []string{"u1", "a1", "t1", "a1b"},
		},
		{
			// Nothing valid follows the budget point, so the cut moves back
			// and keeps more than the budget.
			name: "huge last tool result keeps its call",
			entries: []Entry{
				user(t, "u1", 10), asst(t, "a1", 10),
				user(t, "u2", 10), asst(t, "a2", 10, "c1"), result(t, "t1", "c1", 500),
			},
			s:         keep100,
			summarise: []string{"u1", "a1", "u2"},
			kept:      []string{"a2", "t1"},
			split:     true,
		},
		{
			name: "only the first assistant is a cut",
			entries: []Entry{
				user(t, "u1", 10), asst(t, "a1", 10, "c1"), result(t, "t1", "c1", 500),
			},
			s:         keep100,
			summarise: []string{"u1"},
			kept:      []string{"a1", "t1"},
			split:     true,
		},
		{
			name: "only results after the first message",
			entries: []Entry{
				user(t, "u1", 10), result(t, "t1", "c1", 500),
			},
			s:       keep100,
			wantErr: ErrNothingToCompact,
		},
		{
			name: "zero keep means the 20000 default",
			entries: []Entry{
				user(t, "u1", 15000), asst(t, "a1", 15000),
				user(t, "u2", 100), asst(t, "a2", 100),
			},
			summarise: []string{"u1", "a1"},
			kept:      []string{"u2", "a2"},
		},
		{
			name: "enabled is ignored",
			entries: []Entry{
				user(t, "u1", 100), asst(t, "a1", 100),
				user(t, "u2", 60), asst(t, "a2", 60),
			},
			s:         Settings{Enabled: false, KeepRecentTokens: 100},
			summarise: []string{"u1", "a1"},
			kept:      []string{"u2", "a2"},
		},
		{
			name: "first kept entry without id",
			entries: []Entry{
				user(t, "u1", 100), asst(t, "a1", 100),
				user(t, "", 60), asst(t, "a2", 60),
			},
			s:       keep100,
			wantErr: ErrNoEntryID,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cut, err := Plan(tt.entries, tt.s)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("Plan error = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Plan: %v", err)
			}
			if got := ids(cut.ToSummarise); !equalStrings(got, tt.summarise) {
				t.Errorf("ToSummarise = %v, want %v", got, tt.summarise)
			}
			if got := ids(cut.Kept); !equalStrings(got, tt.kept) {
				t.Errorf("Kept = %v, want %v", got, tt.kept)
			}
			if cut.FirstKeptEntryID != tt.kept[0] {
				t.Errorf("FirstKeptEntryID = %q, want %q", cut.FirstKeptEntryID, tt.kept[0])
			}
			if cut.SplitTurn != tt.split {
				t.Errorf("SplitTurn = %v, want %v", cut.SplitTurn, tt.split)
			}
			if want := Estimate(messages(tt.entries)); cut.TokensBefore != want {
				t.Errorf("TokensBefore = %d, want %d", cut.TokensBefore, want)
			}
		})
	}
}

func TestPlanSlicesDoNotAlias(t *testing.T) {
	entries := []Entry{
		user(t, "u1", 100), asst(t, "a1", 100),
		user(t, "u2", 60), asst(t, "a2", 60),
	}
	cut, err := Plan(entries, Settings{KeepRecentTokens: 100})
	if err != nil {
		t.Fatalf("Plan: %v", err)
	}
	_ = append(cut.ToSummarise, user(t, "extra", 10))
	if cut.Kept[0].ID != "u2" {
		t.Errorf("appending to ToSummarise overwrote Kept[0]: %q", cut.Kept[0].ID)
	}
}

// TestPlanInvariants checks, over random conversations, that the cut never
// separates a call from its results and never starts the kept part with a
// result.
func TestPlanInvariants(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 500 {
		entries := randomConversation(t, rng)
		keep := 20 + rng.IntN(400)
		cut, err := Plan(entries, Settings{KeepRecentTokens: keep})
		if errors.Is(err, ErrNothingToCompact) {
			continue
		}
		if err != nil {
			t.Fatalf("round %d: Plan: %v", round, err)
		}
		if len(cut.ToSummarise) == 0 || len(cut.Kept) == 0 || len(cut.ToSummarise)+len(cut.Kept) != len(entries) {
			t.Fatalf("round %d: split %d+%d of %d entries", round, len(cut.ToSummarise), len(cut.Kept), len(entries))
		}
		if cut.Kept[0].Message.Role == llm.RoleTool {
			t.Fatalf("round %d: kept part starts with a tool result", round)
		}
		summarisedCalls := map[string]bool{}
		for _, e := range cut.ToSummarise {
			for _, c := range e.Message.ToolCalls {
				summarisedCalls[c.ID] = true
			}
		}
		for _, e := range cut.Kept {
			if e.Message.Role == llm.RoleTool && summarisedCalls[e.Message.ToolCallID] {
				t.Fatalf("round %d: result %s kept but its call %s summarised", round, e.ID, e.Message.ToolCallID)
			}
		}
	}
}

// randomConversation makes turns of a user message followed by rounds of
// assistant calls and their results, with unique call IDs.
func randomConversation(t *testing.T, rng *rand.Rand) []Entry {
	var entries []Entry
	n := 0
	id := func() string { n++; return "e" + strconv.Itoa(n) }
	for range 1 + rng.IntN(6) {
		entries = append(entries, user(t, id(), 5+rng.IntN(60)))
		for range rng.IntN(4) {
			var calls []string
			for range 1 + rng.IntN(3) {
				calls = append(calls, "c"+strconv.Itoa(n)+"_"+strconv.Itoa(len(calls)))
			}
			entries = append(entries, asst(t, id(), 20+rng.IntN(60), calls...))
			for _, c := range calls {
				entries = append(entries, result(t, id(), c, 10+rng.IntN(200)))
			}
		}
		entries = append(entries, asst(t, id(), 5+rng.IntN(60)))
	}
	return entries
}

func messages(entries []Entry) []llm.Message {
	out := make([]llm.Message, 0, len(entries))
	for _, e := range entries {
		out = append(out, e.Message)
	}
	return out
}
