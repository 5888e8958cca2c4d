package rest

import (
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/troupehq/troupe/persistence/event"
)

// TranscriptOptions are GET …/transcript's query, as Hydra's CLI (`session
// transcript --tools --thoughts --last/--from/--to/--since`) sends it.
type TranscriptOptions struct {
	Tools    bool // ?tools=1|true|yes: tool calls with arguments and output
	Thoughts bool // ?thoughts=1|true|yes: the model's thinking
	// From and To are turns (1 the first; negative counts from the end,
	// -1 the last), clamped to the session's; 0 is unset. Last, when
	// positive, is the last n turns and wins over them.
	From, To, Last int
	// Since keeps the turns with anything recorded at or after it.
	Since time.Time
}

// transcriptOptions reads the query; a malformed number is an error (a
// 400), not a silent full transcript.
func transcriptOptions(r *http.Request) (TranscriptOptions, error) {
	q := r.URL.Query()
	truthy := func(v string) bool { return v == "1" || v == "true" || v == "yes" }
	o := TranscriptOptions{Tools: truthy(q.Get("tools")), Thoughts: truthy(q.Get("thoughts"))}
	for _, f := range []struct {
		name string
		to   *int
	}{{"from", &o.From}, {"to", &o.To}, {"last", &o.Last}} {
		v := q.Get(f.name)
		if v == "" {
			continue
		}
		n, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return o, fmt.Errorf("%s must be a number", f.name)
		}
		*f.to = int(n)
	}
	if v := q.Get("since"); v != "" {
		ms, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return o, fmt.Errorf("since must be a number (Unix milliseconds)")
		}
		o.Since = time.UnixMilli(int64(ms))
	}
	return o, nil
}

// turnWindow is the turns a transcript shows, of total.
type turnWindow struct{ from, to, total int }

// sliced says whether the window leaves turns out: the transcript says so,
// lest it read like a short session.
func (w turnWindow) sliced() bool { return w.total > 0 && (w.from > 1 || w.to < w.total) }

// window marks the events of the turns o keeps. A turn starts at each
// prompt's run (and each imported user message) and runs to the next;
// what is recorded between two runs (the next prompt queued) belongs to
// the next, what comes before the first to the first. A history.imported event
// spans the turns of its user messages and is kept whole when any is.
func (o TranscriptOptions) window(all []shownEvent) ([]bool, turnWindow) {
	keep := make([]bool, len(all))
	if o.From == 0 && o.To == 0 && o.Last <= 0 && o.Since.IsZero() {
		for i := range keep {
			keep[i] = true
		}
		return keep, turnWindow{}
	}
	first, last := make([]int, len(all)), make([]int, len(all))
	turn, inRun := 0, false
	for i, se := range all {
		switch se.e.Kind {
		case event.RunStarted:
			turn++
			first[i], inRun = turn, true
		case event.RunEnded:
			first[i], inRun = turn, false
		case event.HistoryImported:
			var p event.HistoryImportedPayload
			_ = se.e.Decode(&p) // an unreadable one is one event of the current turn
			first[i] = turn
			if len(p.Messages) > 0 && p.Messages[0].Role == "user" {
				first[i] = turn + 1
			}
			for _, m := range p.Messages {
				if m.Role == "user" {
					turn++
				}
			}
		default:
			first[i] = turn
			if !inRun {
				first[i] = turn + 1 // between runs: the next prompt's (queued) turn
			}
		}
		last[i] = max(turn, first[i])
	}
	total := max(turn, 1)
	for i := range all {
		first[i], last[i] = min(max(first[i], 1), total), min(max(last[i], 1), total)
	}
	w := turnWindow{from: 1, to: total, total: total}
	if o.Last > 0 {
		w.from = clampTurn(total-o.Last+1, total)
	} else {
		if o.From != 0 {
			w.from = clampTurn(o.From, total)
		}
		if o.To != 0 {
			w.to = clampTurn(o.To, total)
		}
	}
	recent := map[int]bool{}
	if !o.Since.IsZero() {
		for i, se := range all {
			if !se.e.RecordedAt.Before(o.Since) {
				for t := first[i]; t <= last[i]; t++ {
					recent[t] = true
				}
			}
		}
	}
	lo, hi := 0, 0
	for i := range all {
		for t := first[i]; t <= last[i]; t++ {
			if t >= w.from && t <= w.to && (o.Since.IsZero() || recent[t]) {
				keep[i] = true
				if lo == 0 || t < lo {
					lo = t
				}
				hi = max(hi, t)
			}
		}
	}
	if lo > 0 {
		w.from, w.to = lo, hi
	}
	return keep, w
}

// clampTurn maps a turn number, negative from the end, into 1…total.
func clampTurn(n, total int) int {
	if n < 0 {
		n = total + n + 1
	}
	return min(max(n, 1), total)
}

// shownEvent is an event of a transcript with its log's decisions.
type shownEvent struct {
	d *decisions
	e event.Event
}
