package rest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"slices"
	"time"

	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/transports/overrides"
)

// historyLine is one NDJSON line of /history, shaped as hydra's history
// entries: a session/update as a client attached from the start received
// it, when it was recorded, and troupe's seq of the event it projects.
type historyLine struct {
	Method     string        `json:"method"`
	Params     historyParams `json:"params"`
	RecordedAt int64         `json:"recordedAt"` // unix milliseconds, as hydra's history.jsonl
	Seq        int64         `json:"seq"`
}

type historyParams struct {
	SessionID string `json:"sessionId"`
	Update    any    `json:"update"`
}

// tailPoll is how often a followed session another process hosts is read
// again: that process's commits reach this one only through the store.
const tailPoll = 100 * time.Millisecond

// history writes the snapshot from the store, then with follow the events
// after it: from the session's actor (replay from the snapshot's end, then
// live) while this daemon hosts it, else by tailing the store (a cold
// session is not started by a reader; another process may host it). Either
// way each event is written once, in order: every read starts after the
// last seq written.
func (a *API) history(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	ctx := r.Context()
	if _, err := a.cfg.Sessions.Meta(ctx, id); err != nil {
		a.sessionError(w, id, err)
		return
	}
	follow := r.URL.Query().Get("follow")
	d, err := readDecisions(ctx, a.cfg.Sessions, nil, id, nil)
	if err != nil {
		a.sessionError(w, id, err)
		return
	}
	h := &historyWriter{id: id, proj: newProjector(id, a.cfg.Models, d), bw: bufio.NewWriterSize(w, 64<<10), rc: http.NewResponseController(w)}
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	if err := a.loadSettled(ctx, h, 1); err != nil {
		if errors.Is(err, errStop) {
			return // the client left
		}
		a.cfg.Log.Warn("history read failed", "session", id, "error", err)
		return
	}
	if err := h.flush(); err != nil || (follow != "1" && follow != "true") {
		return
	}
	a.follow(ctx, h)
}

func (a *API) follow(ctx context.Context, h *historyWriter) {
	for ctx.Err() == nil {
		live, err := a.liveHere(ctx, h.id)
		if err != nil {
			return
		}
		if !live {
			// Reading needs no actor: a cold session is not started, and one
			// another process hosts is served from the store.
			if !a.tailStore(ctx, h) {
				return
			}
			continue
		}
		s, err := a.cfg.Sessions.Stream(ctx, h.id, h.last+1, false)
		if err != nil {
			// It stopped (or moved to another process) since; read the store.
			if !a.tailStore(ctx, h) {
				return
			}
			continue
		}
		a.followStream(ctx, h, s)
		s.Close()
		return
	}
}

// liveHere reports whether this daemon hosts session id now.
func (a *API) liveHere(ctx context.Context, id string) (bool, error) {
	live, err := a.cfg.Sessions.Live(ctx)
	if err != nil {
		return false, err
	}
	return slices.Contains(live, id), nil
}

// followStream writes the stream's events until the session stops or the
// client leaves. Events that arrived together are flushed together.
func (a *API) followStream(ctx context.Context, h *historyWriter, s *sessions.Stream) {
	for {
		e, err := s.Next(ctx)
		if err != nil {
			return
		}
		for n := 1; ; n++ {
			if !a.settle(ctx, h, e) || h.write(e) != nil {
				return
			}
			if n == maxBatch {
				break
			}
			var more bool
			if e, more = s.TryNext(); !more {
				break
			}
		}
		if h.flush() != nil {
			return
		}
	}
}

// maxBatch bounds the events written between two flushes.
const maxBatch = 1024

// tailStore reads the store for new events until this daemon hosts the
// session (true: follow its actor from here) or the client leaves (false).
func (a *API) tailStore(ctx context.Context, h *historyWriter) bool {
	t := time.NewTicker(tailPoll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
		}
		if err := a.loadSettled(ctx, h, h.last+1); err != nil {
			return false
		}
		if h.flush() != nil {
			return false
		}
		if live, err := a.liveHere(ctx, h.id); err != nil || live {
			return err == nil
		}
	}
}

type historyWriter struct {
	id   string
	proj *projector
	bw   *bufio.Writer
	rc   *http.ResponseController
	last int64
	buf  []byte
	// settled is how far the session's decisions have been read: up to
	// where its gate had released at the last read.
	settled int64
}

// errHeld ends a read of the store at an event settle must wait on or read
// the log for: a read holds one of the store's pooled connections and a
// read transaction, so nothing waits inside it.
var errHeld = errors.New("held by the response chain")

// loadSettled writes the session's events from seq from on, each once
// settle lets it: read until an event needs settling, settle and write it
// outside the read, read on after it.
func (a *API) loadSettled(ctx context.Context, h *historyWriter, from int64) error {
	for {
		var held event.Event
		err := a.cfg.Sessions.Load(ctx, h.id, from, func(e event.Event) error {
			if !a.settledNow(h, e) {
				held = e
				return errHeld
			}
			return h.write(e)
		})
		if !errors.Is(err, errHeld) {
			return err
		}
		if !a.settle(ctx, h, held) {
			return errStop
		}
		if err := h.write(held); err != nil {
			return err
		}
		from = held.Seq + 1
	}
}

// settledNow settles e when that needs no wait and no read: false when
// settle must wait for the session's gate or read the log.
func (a *API) settledNow(h *historyWriter, e event.Event) bool {
	if a.cfg.Gate == nil || !overrides.AgentKind(e.Kind) || e.Seq <= h.settled {
		return true
	}
	released := a.cfg.Gate.Released(h.id)
	if released == math.MaxInt64 {
		return true
	}
	if released < e.Seq {
		return false
	}
	d, decided, known := a.cfg.Gate.Decided(h.id, e.Seq)
	if known && decided {
		h.proj.decisions.set(h.id, e.Seq, d)
	}
	return known
}

// gatePoll is how often a followed history looks whether a session's
// response chain has decided the agent update it waits on.
const gatePoll = 10 * time.Millisecond

// settle waits, for an agent update of a gated session, until the
// session's response chain has decided it, and takes the decision from
// the gate or, when the gate may have forgotten it, from the log (a
// decision is durable before the gate moves past its event), so that the
// history shows it as ACP clients are shown it. False when the client
// left or the decisions could not be read.
func (a *API) settle(ctx context.Context, h *historyWriter, e event.Event) bool {
	if a.cfg.Gate == nil || !overrides.AgentKind(e.Kind) || e.Seq <= h.settled {
		return true
	}
	released := a.cfg.Gate.Released(h.id)
	if released == math.MaxInt64 {
		return true // no gate: nothing waits to be decided
	}
	if released < e.Seq {
		// The held update is flushed with what came before it.
		if h.flush() != nil {
			return false
		}
		t := time.NewTicker(gatePoll)
		defer t.Stop()
		for released < e.Seq {
			select {
			case <-ctx.Done():
				return false
			case <-t.C:
			}
			released = a.cfg.Gate.Released(h.id)
		}
	}
	if d, decided, known := a.cfg.Gate.Decided(h.id, e.Seq); known {
		if decided {
			h.proj.decisions.set(h.id, e.Seq, d)
		}
		return true
	}
	m, err := overrides.Read(ctx, a.cfg.Sessions, h.id)
	if err != nil {
		a.cfg.Log.Warn("history follow: reading the session's transformed updates failed", "session", h.id, "error", err)
		return false
	}
	if m != nil {
		h.proj.decisions.by[h.id] = m
	}
	if released != math.MaxInt64 {
		h.settled = released // a gate closed meanwhile may open again
	}
	return true
}

func (h *historyWriter) write(e event.Event) error {
	h.last = e.Seq
	if _, decided := h.proj.decisions.of(e); e.Kind == event.MessageDelta && !decided {
		var ok bool
		if h.buf, ok = deltaLine(h.buf[:0], h.id, e, h.proj.m.View.StreamingID); ok {
			h.proj.skip(e)
			_, err := h.bw.Write(h.buf)
			return err
		}
	}
	for _, u := range h.proj.project(e) {
		b, err := json.Marshal(historyLine{Seq: e.Seq, RecordedAt: e.RecordedAt.UnixMilli(), Method: "session/update",
			Params: historyParams{SessionID: h.id, Update: u.body}})
		if err != nil {
			return err
		}
		if _, err := h.bw.Write(append(b, '\n')); err != nil {
			return err
		}
	}
	return nil
}

func (h *historyWriter) flush() error {
	if err := h.bw.Flush(); err != nil {
		return err
	}
	return h.rc.Flush()
}
