package rpc

import "github.com/troupehq/troupe/persistence/event"

// deltas shows the run of message.delta events starting at evs[i] and
// returns the index after it. Consecutive deltas of one block are merged
// into one line: a batch holds many only when the session committed them
// together, that is when this reader fell behind, so merging keeps up
// without changing what a client reassembles. Each delta is still folded
// into the view on its own.
func (f *fold) deltas(evs []event.Event, i int) int {
	f.Deltas, f.merging = true, true
	defer func() { f.merging = false }()
	var last deltaKey
	for ; i < len(evs) && evs[i].Kind == event.MessageDelta; i++ {
		ch := f.View.Apply(evs[i])
		d := ch.Delta
		if d == nil {
			continue
		}
		if k := (deltaKey{d.MessageID, d.Channel, d.ToolCallID}); k != last {
			f.showMerged()
			last = k
		}
		if ch.Block != nil && f.asst != nil {
			f.asst.delta(f, ch.Block, ch.BlockOpened, d.Text)
		}
	}
	f.showMerged()
	return i
}

// deltaKey is what consecutive deltas share to merge into one line.
type deltaKey struct{ message, channel, toolCall string }

// showMerged writes the deltas merged since the last line, unless stdout
// is behind: then they wait for the next line, as any delta does (meter).
func (f *fold) showMerged() {
	if !f.merged {
		return
	}
	f.merged = false
	if f.behind != nil && f.behind() {
		return
	}
	f.flushDeltas()
}
