package projection_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/transports/projection"
	"github.com/troupehq/troupe/transports/projection/projectiontest"
)

// summary is the view in one line: the pending prompts, each run under
// way (its step, the streamed blocks, the calls and their states, retries,
// usage), the session's usage, the compaction under way and the forks.
func summary(v *projection.View) string {
	var b strings.Builder
	fmt.Fprintf(&b, "seq=%d pending=%v", v.LastSeq, pendingIDs(v))
	for _, r := range v.Runs {
		fmt.Fprintf(&b, " run=%s steps=%d", r.ID, r.Steps)
		if st := r.Step; st != nil {
			fmt.Fprintf(&b, " step=%d/%s", st.N, st.MessageID)
			for _, bl := range st.Blocks {
				fmt.Fprintf(&b, " %s%s:%q", bl.Channel, bl.ToolCallID, bl.Text)
			}
			if st.Message != nil {
				b.WriteString(" completed")
			}
			if st.Ended {
				fmt.Fprintf(&b, " ended:%s", st.FinishReason)
			}
		}
		for _, c := range r.Calls {
			fmt.Fprintf(&b, " %s:%s:%s", c.ID, c.Name, c.State)
			if p := c.Permission; p != nil {
				fmt.Fprintf(&b, "(asked:%s)", p.Outcome)
			}
			if c.Output != "" {
				fmt.Fprintf(&b, "(out:%q)", c.Output)
			}
			if c.Result != nil {
				fmt.Fprintf(&b, "(%s)", c.Result.Status)
			}
		}
		if r.Retries > 0 {
			fmt.Fprintf(&b, " retries=%d", r.Retries)
		}
		if r.Interrupted != nil {
			fmt.Fprintf(&b, " interrupted:%s", r.Interrupted.Policy)
		}
		fmt.Fprintf(&b, " run-usage=%d/%d", r.Usage.Input, r.Usage.Output)
	}
	fmt.Fprintf(&b, " usage=%d/%d", v.Usage.Input, v.Usage.Output)
	if v.Compaction != nil {
		fmt.Fprintf(&b, " compacting:%s", v.Compaction.Reason)
	}
	var forks []string
	for _, f := range v.Forks {
		forks = append(forks, fmt.Sprintf("%s@%d", f.EntryID, f.Seq))
	}
	fmt.Fprintf(&b, " forks=%v", forks)
	return b.String()
}

func pendingIDs(v *projection.View) []string {
	var out []string
	for _, p := range v.Pending.Entries() {
		out = append(out, p.MessageID)
	}
	return out
}

// The view after chosen events of each log, with deltas folded, and for a
// crash as a view started after it sees the rest.
func TestViewFolds(t *testing.T) {
	type at struct {
		seq  int64
		want string
	}
	cases := map[string][]at{
		"multi_tool": {
			{3, `seq=3 pending=[] run=m1 steps=0 run-usage=0/0 usage=0/0 forks=[m1@2]`},
			{11, `seq=11 pending=[] run=m1 steps=1 step=1/a1 text:"Let me look." tool_call_argsc1:"{\"command\":\"echo one > a.txt; cat a.txt\"}" tool_call_argsc2:"{\"path\":\"a.txt\"}" run-usage=0/0 usage=0/0 forks=[m1@2]`},
			{13, `seq=13 pending=[] run=m1 steps=1 step=1/a1 text:"Let me look." tool_call_argsc1:"{\"command\":\"echo one > a.txt; cat a.txt\"}" tool_call_argsc2:"{\"path\":\"a.txt\"}" completed ended:tool_calls c1:bash:proposed c2:read:proposed run-usage=20/8 usage=0/0 forks=[m1@2]`},
			{16, `seq=16 pending=[] run=m1 steps=1 step=1/a1 text:"Let me look." tool_call_argsc1:"{\"command\":\"echo one > a.txt; cat a.txt\"}" tool_call_argsc2:"{\"path\":\"a.txt\"}" completed ended:tool_calls c1:bash:running(out:"one\n") c2:read:proposed run-usage=20/8 usage=0/0 forks=[m1@2]`},
			{24, `seq=24 pending=[] run=m1 steps=2 step=2/a2 thinking:"Both worked." text:"Done: one" c1:bash:done(out:"one\n")(success) c2:read:done(success) run-usage=20/8 usage=0/0 forks=[m1@2]`},
			{27, `seq=27 pending=[] usage=60/12 forks=[m1@2]`},
		},
		"cancelled": {
			{14, `seq=14 pending=[] run=m1 steps=1 step=1/a1 text:"Cleaning." tool_call_argsc1:"{\"path\":\"notes.txt\"}" tool_call_argsc2:"{\"command\":\"rm -rf build\"}" completed ended:tool_calls c1:read:proposed c2:bash:awaiting(asked:) run-usage=30/9 usage=0/0 forks=[m1@2]`},
			{16, `seq=16 pending=[] run=m1 steps=1 step=1/a1 text:"Cleaning." tool_call_argsc1:"{\"path\":\"notes.txt\"}" tool_call_argsc2:"{\"command\":\"rm -rf build\"}" completed ended:tool_calls c1:read:running(out:"line 1") c2:bash:awaiting(asked:) run-usage=30/9 usage=0/0 forks=[m1@2]`},
			{18, `seq=18 pending=[] run=m1 steps=1 step=1/a1 text:"Cleaning." tool_call_argsc1:"{\"path\":\"notes.txt\"}" tool_call_argsc2:"{\"command\":\"rm -rf build\"}" completed ended:tool_calls c1:read:done(out:"line 1")(cancelled) c2:bash:refused(asked:cancelled) run-usage=30/9 usage=0/0 forks=[m1@2]`},
			{19, `seq=19 pending=[] run=m1 steps=1 step=1/a1 text:"Cleaning." tool_call_argsc1:"{\"path\":\"notes.txt\"}" tool_call_argsc2:"{\"command\":\"rm -rf build\"}" completed ended:tool_calls c1:read:done(out:"line 1")(cancelled) c2:bash:done(asked:cancelled)(cancelled) run-usage=30/9 usage=0/0 forks=[m1@2]`},
			{20, `seq=20 pending=[] usage=30/9 forks=[m1@2]`},
		},
		"steer": {
			{12, `seq=12 pending=[m2 m3 m4] run=m1 steps=1 step=1/a1 text:"Listing." completed ended:tool_calls c1:ls:done(success) c2:read:proposed run-usage=10/5 usage=0/0 forks=[m1@2]`},
			{13, `seq=13 pending=[m2 m3] run=m1 steps=1 step=1/a1 text:"Listing." completed ended:tool_calls c1:ls:done(success) c2:read:proposed run-usage=10/5 usage=0/0 forks=[m1@2]`},
			{15, `seq=15 pending=[m3] run=m1 steps=1 step=1/a1 text:"Listing." completed ended:tool_calls c1:ls:done(success) c2:read:done(skipped) run-usage=10/5 usage=0/0 forks=[m1@2 m2@14]`},
			{25, `seq=25 pending=[] usage=60/11 forks=[m1@2 m2@14 m3@19]`},
		},
		"compaction": {
			{11, `seq=11 pending=[] run=m2 steps=0 run-usage=0/0 usage=100/3 compacting:threshold forks=[m1@2 m2@9]`},
			{12, `seq=12 pending=[] run=m2 steps=0 run-usage=0/0 usage=100/3 forks=[m1@2 m2@9]`},
			{19, `seq=19 pending=[] usage=140/6 compacting:manual forks=[m1@2 m2@9]`},
			{25, `seq=25 pending=[] usage=140/6 forks=[m1@2 m2@9 m3@21]`},
		},
		"retries": {
			{7, `seq=7 pending=[] run=m1 steps=1 step=1/a1 retries=2 run-usage=0/0 usage=0/0 forks=[m1@2]`},
		},
		"crashed": {
			// A view started after the crash meets the run in the middle.
			{16, `seq=16 pending=[] run=m1 steps=0 c2:bash:done(interrupted) run-usage=0/0 usage=0/0 forks=[]`},
			{17, `seq=17 pending=[] run=m1 steps=0 c2:bash:done(interrupted) interrupted:resume run-usage=0/0 usage=0/0 forks=[]`},
			{20, `seq=20 pending=[] run=m1 steps=1 step=2/a2 text:"Recovered and done." c2:bash:done(interrupted) interrupted:resume run-usage=0/0 usage=0/0 forks=[]`},
			{23, `seq=23 pending=[] usage=50/12 forks=[]`},
		},
		"crashed_mid_stream": {
			{8, `seq=8 pending=[] run=m1 steps=0 run-usage=0/0 usage=0/0 forks=[]`},
			{11, `seq=11 pending=[] usage=0/0 forks=[]`},
		},
	}
	for _, c := range projectiontest.Cases(t) {
		want, ok := cases[c.Name]
		if !ok {
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			v := &projection.View{SessionID: c.Log.SessionID, Deltas: true}
			next := 0
			for _, e := range c.Log.Events {
				if e.Seq <= c.Resumed {
					continue
				}
				v.Apply(e)
				if next < len(want) && want[next].seq == e.Seq {
					if got := summary(v); got != want[next].want {
						t.Errorf("after seq %d:\n got %s\nwant %s", e.Seq, got, want[next].want)
					}
					next++
				}
			}
			if next < len(want) {
				t.Fatalf("seq %d not reached", want[next].seq)
			}
		})
	}
}

// What each event changed: the run it opened, the prompt it delivered,
// the call it touched, the block a delta began.
func TestViewChanges(t *testing.T) {
	c := projectiontest.Steer(t)
	v := &projection.View{SessionID: "s1", Deltas: true}
	var got []string
	for _, e := range c.Log.Events {
		ch := v.Apply(e)
		var parts []string
		if ch.RunOpened {
			parts = append(parts, "opened "+ch.Run.ID)
		}
		if ch.Delivered != nil {
			parts = append(parts, "delivered "+ch.Delivered.MessageID+" "+ch.Delivered.Delivery)
		}
		if ch.Call != nil {
			parts = append(parts, "call "+ch.Call.ID+" "+ch.Call.State.String())
		}
		if ch.BlockOpened {
			parts = append(parts, "block "+ch.Block.Channel)
		}
		if e.Kind == event.RunEnded {
			parts = append(parts, "ended "+ch.Run.Ended.StopReason)
		}
		if len(parts) > 0 {
			got = append(got, fmt.Sprintf("%d %s", e.Seq, strings.Join(parts, ", ")))
		}
	}
	want := []string{
		"3 opened m1, delivered m1 prompt",
		"5 block text",
		"8 call c1 running",
		"9 call c1 done",
		"14 call c2 done",
		"15 delivered m2 steer",
		"17 block text",
		"20 delivered m3 follow_up",
		"22 block text",
		"25 ended end_turn",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("changes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Blocks follow the channel and the tool call; a delta of another message
// or an unknown channel extends nothing.
func TestViewBlocks(t *testing.T) {
	l := projectiontest.NewLog(t, "s").Prompt("r", "go").
		Add(event.StepStarted, event.StepStartedPayload{RunID: "r", Step: 1, MessageID: "m"}).
		Deltas("r", "m", event.ChannelThinking, "hm").
		Deltas("r", "m", event.ChannelText, "a", "b").
		CallDeltas("r", "m", "c1", "read", `{"p":`).
		Add(event.MessageDelta, event.MessageDeltaPayload{RunID: "r", MessageID: "m", Channel: event.ChannelToolCallArgs, Text: `1}`}). // no id: the same call
		CallDeltas("r", "m", "c2", "ls", `{}`).
		Deltas("r", "other", event.ChannelText, "lost").
		Deltas("r", "m", "sound", "lost").
		Deltas("r", "m", event.ChannelText, "c")
	v := &projection.View{SessionID: "s", Deltas: true}
	opened := 0
	for _, e := range l.Events {
		if ch := v.Apply(e); ch.BlockOpened {
			opened++
		}
	}
	var got []string
	for _, b := range v.Run().Step.Blocks {
		got = append(got, fmt.Sprintf("%s%s%s=%s", b.Channel, b.ToolCallID, b.ToolName, b.Text))
	}
	want := `[thinking=hm text=ab tool_call_argsc1read={"p":1} tool_call_argsc2ls={} text=c]`
	if fmt.Sprint(got) != want || opened != 5 {
		t.Fatalf("blocks %v (%d opened), want %s", got, opened, want)
	}
}

// With Deltas off a delta is not decoded: it counts toward LastSeq and
// changes nothing else (the replay path).
func TestViewSkipsDeltasWhenOff(t *testing.T) {
	c := projectiontest.MultiTool(t)
	v := &projection.View{SessionID: "s1"}
	for _, e := range c.Log.Events[:11] {
		ch := v.Apply(e)
		if e.Kind == event.MessageDelta && (ch.Delta != nil || ch.Block != nil || ch.Run != nil) {
			t.Fatalf("seq %d: a delta was folded: %+v", e.Seq, ch)
		}
	}
	if v.LastSeq != 11 || len(v.Run().Step.Blocks) != 0 {
		t.Fatalf("seq %d, blocks %d", v.LastSeq, len(v.Run().Step.Blocks))
	}
}

// Settings come from every session folded; cwd, title and seqs only from
// the one shown. A fork inherits its ancestors' settings, usage and fork
// points, and starts idle with nothing queued.
func TestViewInherit(t *testing.T) {
	parent := projectiontest.Steer(t).Log.Events[:12] // a run under way, two prompts queued
	v := &projection.View{SessionID: "s2"}
	for _, e := range parent {
		v.Apply(e)
	}
	if v.LastSeq != 0 || v.Cwd != "" || v.Title != "" || v.Pending.Len() != 3 || v.Run() == nil {
		t.Fatalf("after the parent: %s (cwd %q, title %q)", summary(v), v.Cwd, v.Title)
	}
	v.Inherit()
	v.Apply(projectiontest.NewLog(t, "s2").Add(event.SessionCreated, event.CreatedPayload{Cwd: "/fork", Title: "fork"}).Events[0])
	got := fmt.Sprintf("%s cwd=%s title=%s model=%s", summary(v), v.Cwd, v.Title, *v.Settings.Model)
	want := "seq=1 pending=[] usage=0/0 forks=[m1@2] cwd=/fork title=fork model=tiny"
	if got != want {
		t.Fatalf("fork:\n got %s\nwant %s", got, want)
	}
}
