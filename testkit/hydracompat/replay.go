package hydracompat

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/troupehq/troupe/testkit/transcript"
)

// wait bounds how long the replay waits for what the daemon sent before
// the client's next message in the recording.
const wait = 20 * time.Second

// Replay plays a recording's client side against a fresh `troupe daemon`
// (binaries troupe and fakeLlama) started with the recording's Setup, and
// fails t with a readable diff where the daemon's side differs from the
// recording after normalisation.
//
// The client's side goes out in the recorded order. Before each client
// message, every daemon message recorded before it (on any exchange) must
// have arrived; the daemon's requests to the client (a permission) are
// matched by position, and the client's answers carry the live request's
// id. Ids are numbered on both sides in the same consumption order, so a
// session id the daemon minted shows as the same $S1 in both.
func Replay(t *testing.T, recs []Record, troupe, fakeLlama string) {
	t.Helper()
	if len(recs) == 0 || recs[0].Kind != KindSetup {
		t.Fatal("the recording does not start with its setup")
	}
	var setup Setup
	if err := json.Unmarshal(recs[0].Body, &setup); err != nil {
		t.Fatalf("setup: %v", err)
	}
	d := StartDaemon(t, DaemonOptions{Troupe: troupe, FakeLlama: fakeLlama, Script: setup.Script, Config: setup.Config})
	d.Start()
	r := newReplayer(t, d, setup, recs[1:])
	r.run()
}

type replayer struct {
	t        *testing.T
	d        *Daemon
	recs     []Record
	token    string
	rec      *transcript.Normaliser // the recording's side
	live     *transcript.Normaliser // the daemon's side now
	want     map[int][]string       // conn -> the recording's daemon side, normalised
	got      map[int][]string       // conn -> the live daemon side, normalised
	wantRaw  map[int][]Record       // conn -> the recording's daemon side
	expected map[int]int            // conn -> daemon records due so far
	conns    map[int]*liveConn
	reqIDs   map[int]map[string]json.RawMessage // conn -> recorded request id -> live one
	values   map[string]string                  // $NAME -> what it stands for now
	// prompts are the session/prompt requests of the recording sent and
	// not yet answered, by id; racing are the HTTP exchanges the client
	// opened meanwhile (see turnFields).
	prompts map[string]bool
	racing  map[int]bool
	// closedAt is when, in the recording, a client last dropped a
	// WebSocket; settling are the HTTP exchanges it opened right after
	// (see attachFields).
	closedAt int64
	settling map[int]bool
}

// liveConn is one exchange with the daemon now: a WebSocket or an HTTP
// request in flight.
type liveConn struct {
	mu   sync.Mutex
	recv []Record
	ws   *websocket.Conn
	wmu  sync.Mutex
}

func (c *liveConn) add(rec Record) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.recv = append(c.recv, rec)
}

func (c *liveConn) n() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.recv)
}

func (c *liveConn) at(i int) Record {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.recv[i]
}

var catDir = regexp.MustCompile(`/tmp/hydra-cat-[A-Za-z0-9]+`)

func newReplayer(t *testing.T, d *Daemon, setup Setup, recs []Record) *replayer {
	r := &replayer{
		t: t, d: d, recs: recs, token: d.Token(),
		rec: transcript.NewNormaliser(), live: transcript.NewNormaliser(),
		want: map[int][]string{}, got: map[int][]string{}, wantRaw: map[int][]Record{},
		expected: map[int]int{}, conns: map[int]*liveConn{}, reqIDs: map[int]map[string]json.RawMessage{},
		values: map[string]string{}, prompts: map[string]bool{}, racing: map[int]bool{}, settling: map[int]bool{},
	}
	r.literal("WORK", setup.Work, d.Work)
	r.literal("TROUPE_HOME", setup.Home, d.Home)
	r.literal("TOKEN", "$TOKEN", r.token)
	// The machine's name only as a whole JSON string: a short one occurs
	// inside ids too.
	if host, err := os.Hostname(); err == nil && setup.Host != "" {
		r.literal("HOST", `"`+setup.Host+`"`, `"`+host+`"`)
	}
	// hydra cat runs each session in a temporary directory of its own:
	// each gets a fresh one here.
	seen := map[string]bool{}
	for _, rec := range recs {
		for _, dir := range catDir.FindAllString(string(rec.Payload())+rec.Path, -1) {
			if seen[dir] {
				continue
			}
			seen[dir] = true
			name := fmt.Sprintf("CAT%d", len(seen))
			fresh, err := os.MkdirTemp("", "hydra-cat-")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(fresh) })
			r.literal(name, dir, fresh)
		}
	}
	return r
}

// literal has $name stand for recorded in the recording and for now in
// the live run.
func (r *replayer) literal(name, recorded, now string) {
	r.rec.Literal(recorded, name)
	r.live.Literal(now, name)
	r.values[name] = now
}

// pace caps the client's think time the replay keeps: the recorded gap
// between two of its messages, up to this, so that what the daemon does
// after answering (a detach, a turn's end) is done as it was.
const pace = 300 * time.Millisecond

func (r *replayer) run() {
	lastMs, last := int64(0), time.Now()
	for i, rec := range r.recs {
		switch {
		case rec.Kind == KindStop || rec.Kind == KindStart:
			if !r.catchUp(i) {
				return
			}
			if rec.Kind == KindStop {
				r.d.Stop()
			} else {
				r.d.Start()
			}
		case rec.Dir == Recv:
			r.expected[rec.Conn]++
			r.wantRaw[rec.Conn] = append(r.wantRaw[rec.Conn], rec)
			r.trackPrompt(rec)
		case rec.Dir == Send:
			r.trackPrompt(rec)
			if !r.catchUp(i) {
				return
			}
			gap := min(time.Duration(rec.Ms-lastMs)*time.Millisecond, pace)
			time.Sleep(time.Until(last.Add(gap)))
			lastMs, last = rec.Ms, time.Now()
			r.send(rec)
		}
	}
	r.catchUp(len(r.recs))
	r.drain()
	r.compare()
}

// catchUp waits until every daemon record before position i has a live
// counterpart, then normalises both sides' new records in the same order
// (by exchange number). It reports false, failing the test, when the
// daemon fell short.
func (r *replayer) catchUp(i int) bool {
	conns := sortedKeys(r.expected)
	deadline := time.Now().Add(wait)
	for _, c := range conns {
		lc := r.conns[c]
		for lc == nil || lc.n() < r.expected[c] {
			if time.Now().After(deadline) {
				r.consume()
				r.compare()
				r.t.Fatalf("before record %d of the recording, exchange %d had %d of the %d daemon messages recorded by then (see the diff above)", i+1, c, r.liveN(c), r.expected[c])
				return false
			}
			time.Sleep(5 * time.Millisecond)
			lc = r.conns[c]
		}
	}
	r.consume()
	return true
}

func (r *replayer) liveN(c int) int {
	if lc := r.conns[c]; lc != nil {
		return lc.n()
	}
	return 0
}

// consume normalises, exchange by exchange, the records due so far on
// both sides, and maps the daemon's request ids.
func (r *replayer) consume() {
	for _, c := range sortedKeys(r.expected) {
		lc := r.conns[c]
		for len(r.want[c]) < r.expected[c] {
			k := len(r.want[c])
			want := r.wantRaw[c][k]
			r.want[c] = append(r.want[c], r.norm(r.rec, c, want))
			if lc == nil || k >= lc.n() {
				continue
			}
			got := lc.at(k)
			r.got[c] = append(r.got[c], r.norm(r.live, c, got))
			r.mapRequest(c, want, got)
		}
	}
}

// drain waits a moment for anything the daemon sends beyond the
// recording, so that a message too many shows in the diff.
func (r *replayer) drain() {
	time.Sleep(300 * time.Millisecond)
	for _, c := range sortedKeys(r.conns) {
		lc := r.conns[c]
		for k := len(r.got[c]); k < lc.n(); k++ {
			r.got[c] = append(r.got[c], r.norm(r.live, c, lc.at(k)))
		}
	}
}

// mapRequest remembers the live id of a request the daemon made of the
// client, by the recorded one.
func (r *replayer) mapRequest(c int, want, got Record) {
	var w, g struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(want.Body, &w) != nil || w.Method == "" || w.ID == nil || json.Unmarshal(got.Body, &g) != nil || g.ID == nil {
		return
	}
	if r.reqIDs[c] == nil {
		r.reqIDs[c] = map[string]json.RawMessage{}
	}
	r.reqIDs[c][string(w.ID)] = g.ID
}

// trackPrompt follows the recording's turns: a session/prompt sent is
// under way until its answer; an HTTP request the client sends meanwhile
// (the TUI reads the session's entry as it sends a prompt) races the turn;
// one sent right after a dropped WebSocket races its detach.
func (r *replayer) trackPrompt(rec Record) {
	if rec.Kind == KindHTTP && rec.Dir == Send && len(r.prompts) > 0 {
		r.racing[rec.Conn] = true
	}
	if rec.Kind == KindWSClose && rec.Dir == Send {
		r.closedAt = rec.Ms
	}
	if rec.Kind == KindHTTP && rec.Dir == Send && r.closedAt > 0 && rec.Ms-r.closedAt < settleMs {
		r.settling[rec.Conn] = true
	}
	if rec.Kind != KindWS || rec.Body == nil {
		return
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(rec.Body, &m) != nil || m.ID == nil {
		return
	}
	key := fmt.Sprintf("%d/%s", rec.Conn, m.ID)
	switch {
	case rec.Dir == Send && m.Method == "session/prompt":
		r.prompts[key] = true
	case rec.Dir == Recv && m.Method == "":
		delete(r.prompts, key)
	}
}

// turnFields are a session entry's members that a turn under way moves
// (the prompt's title, the promotion to interactive, busy, a permission
// awaited): an answer that raced a turn is answered before or after the
// daemon took the prompt, as the two processes' timing has it, so they are
// left out of its comparison, and the rest of the answer still is compared.
var turnFields = regexp.MustCompile(`,?"(busy|title|interactive|awaitingInput)":(true|false|"(?:[^"\\]|\\.)*")`)

// attachFields are what a client dropping its WebSocket moves: the daemon
// notices the closed connection and detaches it asynchronously (Hydra's
// does too), so a request the client sends within settleMs of the drop
// is answered before or after the detach, as the processes' timing has
// it; the field is left out of that answer's comparison only.
var attachFields = regexp.MustCompile(`,?"attachedClients":\d+`)

// settleMs is how soon after a dropped WebSocket a request races its
// detach.
const settleMs = 250

// norm is a daemon record as compared: its JSON line, normalised.
func (r *replayer) norm(n *transcript.Normaliser, c int, rec Record) string {
	racing := r.racing[c]
	rec.Conn, rec.Ms = 0, 0
	b, err := marshal(rec)
	if err != nil {
		r.t.Fatal(err)
	}
	s := normalise(n, b)
	if racing {
		s = turnFields.ReplaceAllString(s, "")
	}
	if r.settling[c] {
		s = attachFields.ReplaceAllString(s, "")
	}
	return s
}

// expand is a recorded client line made live: its ids and paths the
// daemon's now.
func (r *replayer) expand(s string) string {
	return r.live.Expand(r.rec.IDs(s), func(name string) string { return r.values[name] })
}

func (r *replayer) send(rec Record) {
	switch rec.Kind {
	case KindHTTP:
		r.sendHTTP(rec)
	case KindWSOpen:
		r.openWS(rec)
	case KindWS:
		lc := r.conns[rec.Conn]
		if lc == nil || lc.ws == nil {
			r.t.Fatalf("exchange %d: a message on a WebSocket never opened", rec.Conn)
		}
		msg := []byte(r.expand(string(rec.Payload())))
		msg = r.answerID(rec.Conn, msg)
		typ := websocket.TextMessage
		if rec.Binary {
			typ = websocket.BinaryMessage
		}
		lc.wmu.Lock()
		err := lc.ws.WriteMessage(typ, msg)
		lc.wmu.Unlock()
		if err != nil {
			r.t.Logf("exchange %d: send: %v", rec.Conn, err)
		}
	case KindWSClose:
		lc := r.conns[rec.Conn]
		if lc == nil || lc.ws == nil {
			return
		}
		// The client went away without a close frame: so does the replay.
		if rec.Code == websocket.CloseAbnormalClosure || rec.Code == websocket.CloseNoStatusReceived {
			lc.ws.Close()
			return
		}
		lc.wmu.Lock()
		lc.ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(rec.Code, ""), time.Now().Add(time.Second)) //nolint:errcheck // the daemon may be gone
		lc.wmu.Unlock()
	}
}

// answerID gives a client's answer to a daemon request the live
// request's id.
func (r *replayer) answerID(c int, msg []byte) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(msg, &m) != nil || m["method"] != nil || m["id"] == nil {
		return msg
	}
	live, ok := r.reqIDs[c][string(m["id"])]
	if !ok {
		return msg
	}
	m["id"] = live
	out, err := json.Marshal(m)
	if err != nil {
		return msg
	}
	return out
}

func (r *replayer) sendHTTP(rec Record) {
	lc := &liveConn{}
	r.conns[rec.Conn] = lc
	body := []byte(r.expand(string(rec.Payload())))
	req, err := http.NewRequest(rec.Method, r.d.URL()+r.expand(rec.Path), bytes.NewReader(body))
	if err != nil {
		r.t.Fatal(err)
	}
	if rec.ContentType != "" {
		req.Header.Set("Content-Type", rec.ContentType)
	}
	req.Header.Set("Authorization", "Bearer "+r.token)
	// In flight while the recording goes on, as the client's was (a
	// history follow ends only when the client leaves).
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			// As the proxy answered a client while the daemon was down.
			lc.add(Record{Dir: Recv, Kind: KindHTTP, Status: http.StatusBadGateway, Text: ptr("proxy: " + err.Error())})
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		got := Record{Dir: Recv, Kind: KindHTTP, Status: resp.StatusCode, ContentType: resp.Header.Get("Content-Type")}
		got.SetBody(b)
		lc.add(got)
	}()
}

func (r *replayer) openWS(rec Record) {
	lc := &liveConn{}
	r.conns[rec.Conn] = lc
	protos := make([]string, len(rec.Protocols))
	for i, p := range rec.Protocols {
		protos[i] = r.expand(p)
	}
	u := "ws://" + r.d.Listen + r.expand(rec.Path)
	ws, resp, err := (&websocket.Dialer{Subprotocols: protos, HandshakeTimeout: 10 * time.Second}).Dial(u, nil)
	if err != nil {
		got := Record{Dir: Recv, Kind: KindWSOpen, Status: http.StatusBadGateway, Text: ptr("proxy: " + err.Error())}
		if resp != nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			got = Record{Dir: Recv, Kind: KindWSOpen, Status: resp.StatusCode}
			got.SetBody(b)
		}
		lc.add(got)
		return
	}
	lc.ws = ws
	lc.add(Record{Dir: Recv, Kind: KindWSOpen, Status: http.StatusSwitchingProtocols, Protocols: nonEmpty(ws.Subprotocol())})
	r.t.Cleanup(func() { ws.Close() })
	go func() {
		for {
			typ, msg, err := ws.ReadMessage()
			if err != nil {
				code := websocket.CloseAbnormalClosure
				if ce, ok := err.(*websocket.CloseError); ok {
					code = ce.Code
				}
				lc.add(Record{Dir: Recv, Kind: KindWSClose, Code: code})
				return
			}
			got := Record{Dir: Recv, Kind: KindWS, Binary: typ == websocket.BinaryMessage}
			got.SetBody(msg)
			lc.add(got)
		}
	}()
}

// compare fails the test with a diff per exchange that differs.
func (r *replayer) compare() {
	for _, c := range sortedKeys(r.want) {
		want, got := r.want[c], r.got[c]
		if strings.Join(want, "\n") == strings.Join(got, "\n") {
			continue
		}
		r.t.Errorf("exchange %d: the daemon's side differs from the recording (- recorded, + now):\n%s", c, lineDiff(want, got))
	}
}

// lineDiff is a minimal line diff: the common prefix and suffix kept out,
// the rest shown as - and + lines.
func lineDiff(want, got []string) string {
	p := 0
	for p < len(want) && p < len(got) && want[p] == got[p] {
		p++
	}
	s := 0
	for s < len(want)-p && s < len(got)-p && want[len(want)-1-s] == got[len(got)-1-s] {
		s++
	}
	var b strings.Builder
	fmt.Fprintf(&b, "  (%d equal before)\n", p)
	for _, l := range want[p : len(want)-s] {
		fmt.Fprintf(&b, "- %s\n", l)
	}
	for _, l := range got[p : len(got)-s] {
		fmt.Fprintf(&b, "+ %s\n", l)
	}
	fmt.Fprintf(&b, "  (%d equal after)", s)
	return b.String()
}

func sortedKeys[V any](m map[int]V) []int {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	return keys
}

func marshal(rec Record) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(rec); err != nil {
		return nil, fmt.Errorf("encode record: %w", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

var (
	// Hydra's shapes carry more times than troupe's transcripts: every
	// member named ...At, ...Ms or ...Sec, and ISO times anywhere (a
	// markdown transcript's headings).
	hydraVolatile = regexp.MustCompile(`"(\w+At|\w+Ms|\w+Sec|uptime\w*|loopbackPort|startedAt)":(-?\d+(?:\.\d+)?|"(?:[^"\\]|\\.)*")`)
	isoTime       = regexp.MustCompile(`\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?`)
	// A loopback port: the daemon's (in a refused dial while it was
	// down) or another server's.
	loopbackPort = regexp.MustCompile(`127\.0\.0\.1:\d+`)
)

// normalise is the transcript Normaliser's line plus Hydra's volatile
// members.
func normalise(n *transcript.Normaliser, line []byte) string {
	s := n.Line(string(line))
	s = hydraVolatile.ReplaceAllStringFunc(s, func(m string) string {
		key, value, _ := strings.Cut(m, ":")
		if strings.HasPrefix(value, `"`) {
			return key + `:"0"`
		}
		return key + ":0"
	})
	s = loopbackPort.ReplaceAllString(s, "127.0.0.1:$$PORT")
	return isoTime.ReplaceAllString(s, "$$TIME")
}
