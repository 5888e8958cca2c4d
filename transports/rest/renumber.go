package rest

import (
	"encoding/json"

	"github.com/troupehq/troupe/persistence/event"
)

// renumber maps a bundle's events to the seqs an import gives them, so
// that an update.transformed still names the event it decides. A bundle's
// seqs are the exporting logs': a fork's holds each ancestor's log up to
// its fork point, then its own, each numbered from the start again, so a
// seq not above the one before begins another log.
type renumber struct {
	log  map[int64]int64 // the current log's seqs to the import's
	prev int64
}

// add records that the bundle's event src is the import's dst.
func (r *renumber) add(src, dst int64) {
	if r.log == nil || src <= r.prev {
		r.log = map[int64]int64{}
	}
	r.prev = src
	r.log[src] = dst
}

// transformed is an update.transformed payload renumbered; false when the
// event it decides is not in the bundle (an older troupe's export left a
// fork's inherited deltas out): it would decide another event.
func (r *renumber) transformed(src int64, payload json.RawMessage) (json.RawMessage, bool) {
	var p event.UpdateTransformedPayload
	if json.Unmarshal(payload, &p) != nil {
		return payload, true // check refused it already
	}
	if r.log == nil || src <= r.prev {
		return nil, false // it opens a log: it decides nothing in it
	}
	seq, ok := r.log[p.Seq]
	if !ok {
		return nil, false
	}
	from := int64(0)
	if p.From > 0 {
		from = r.log[p.From] // a joined chunk not in the bundle: the seq alone
	}
	p.Seq, p.From = seq, from
	b, err := json.Marshal(p)
	return b, err == nil
}
