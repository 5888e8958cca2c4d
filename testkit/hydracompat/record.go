package hydracompat

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// Kinds of Record.
const (
	KindHTTP    = "http"         // a request (send) or its response (recv)
	KindWSOpen  = "ws-open"      // the upgrade request (send) or its answer (recv)
	KindWS      = "ws"           // one WebSocket message
	KindWSClose = "ws-close"     // the side that closed first
	KindSetup   = "setup"        // first line: what the recording ran with (Setup)
	KindStop    = "daemon-stop"  // the daemon was stopped here (SIGTERM)
	KindStart   = "daemon-start" // and answered again from here
)

// Setup is what a recording ran with, in its first record's body: the
// home's config.json (the configDigest is computed over it), the fake
// model's script, and the paths and name that stand for $WORK,
// $TROUPE_HOME and $HOST.
type Setup struct {
	Config string `json:"config"`
	Script string `json:"script,omitempty"`
	Work   string `json:"work"`
	Home   string `json:"home"`
	Host   string `json:"host,omitempty"` // the machine's name, as sessions carry it
}

// Directions of Record.
const (
	Send = "send" // client to daemon
	Recv = "recv" // daemon to client
)

// Record is one line of a recording. Conn numbers the exchange: an HTTP
// request and its response share one, a WebSocket connection's messages
// share one.
type Record struct {
	Conn        int             `json:"conn"`
	Dir         string          `json:"dir"`
	Kind        string          `json:"kind"`
	Method      string          `json:"method,omitempty"`
	Path        string          `json:"path,omitempty"`
	Protocols   []string        `json:"protocols,omitempty"`
	ContentType string          `json:"contentType,omitempty"`
	Status      int             `json:"status,omitempty"`
	Code        int             `json:"code,omitempty"`
	Body        json.RawMessage `json:"body,omitempty"` // a JSON body as it was
	Text        *string         `json:"text,omitempty"` // any other body
	Binary      bool            `json:"binary,omitempty"`
	// Ms is when the record was made, in milliseconds since the proxy
	// started: the replay paces the client's side by it.
	Ms int64 `json:"ms,omitempty"`
}

// SetBody stores b as Body when it is one JSON value, else as Text.
func (r *Record) SetBody(b []byte) {
	if len(bytes.TrimSpace(b)) == 0 {
		return
	}
	if json.Valid(b) {
		var buf bytes.Buffer
		if json.Compact(&buf, b) == nil {
			r.Body = buf.Bytes()
			return
		}
	}
	s := string(b)
	r.Text = &s
}

// Payload is the body as bytes to send again.
func (r Record) Payload() []byte {
	if r.Text != nil {
		return []byte(*r.Text)
	}
	return r.Body
}

// Recorder collects records in the order they happen. Records that wait
// for their content (an HTTP response still streaming) keep the place they
// were opened at.
type Recorder struct {
	start   time.Time // Ms counts from here
	mu      sync.Mutex
	records []*Record
	conns   int
	secrets []string // token values seen, written as $TOKEN
}

// conn allocates an exchange number.
func (r *Recorder) conn() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.conns++
	return r.conns
}

// Secret registers a token value never to be written.
func (r *Recorder) Secret(s string) {
	if len(s) < 8 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, have := range r.secrets {
		if have == s {
			return
		}
	}
	r.secrets = append(r.secrets, s)
}

// Add appends rec.
func (r *Recorder) Add(rec Record) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rec.Ms = r.ms()
	r.records = append(r.records, &rec)
}

func (r *Recorder) ms() int64 {
	if r.start.IsZero() {
		return 0
	}
	return time.Since(r.start).Milliseconds()
}

// Reserve keeps a place for a record whose content comes later (Put); a
// place never filled is left out.
func (r *Recorder) Reserve() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.records = append(r.records, nil)
	return len(r.records) - 1
}

// Put fills the place Reserve kept.
func (r *Recorder) Put(place int, rec Record) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rec.Ms = r.ms()
	r.records[place] = &rec
}

// Records returns a copy of what has been recorded, token values redacted.
func (r *Recorder) Records() []Record {
	r.mu.Lock()
	out := make([]Record, 0, len(r.records))
	for _, rec := range r.records {
		if rec != nil {
			out = append(out, *rec)
		}
	}
	secrets := append([]string(nil), r.secrets...)
	r.mu.Unlock()
	for i := range out {
		out[i] = redact(out[i], secrets)
	}
	return out
}

func redact(rec Record, secrets []string) Record {
	if len(secrets) == 0 {
		return rec
	}
	rep := func(s string) string {
		for _, x := range secrets {
			s = strings.ReplaceAll(s, x, "$TOKEN")
		}
		return s
	}
	rec.Path = rep(rec.Path)
	rec.Protocols = append([]string(nil), rec.Protocols...)
	for i := range rec.Protocols {
		rec.Protocols[i] = rep(rec.Protocols[i])
	}
	if rec.Body != nil {
		rec.Body = json.RawMessage(rep(string(rec.Body)))
	}
	if rec.Text != nil {
		s := rep(*rec.Text)
		rec.Text = &s
	}
	return rec
}

// WriteFile writes the records as JSON lines, gzipped when path ends in
// .gz (a recording with a large piped input).
func WriteFile(path string, recs []Record) error {
	var buf bytes.Buffer
	var w io.Writer = &buf
	var zw *gzip.Writer
	if strings.HasSuffix(path, ".gz") {
		zw, _ = gzip.NewWriterLevel(&buf, gzip.BestCompression)
		zw.ModTime = time.Time{} // the same records give the same bytes
		w = zw
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, rec := range recs {
		if err := enc.Encode(rec); err != nil {
			return fmt.Errorf("encode record: %w", err)
		}
	}
	if zw != nil {
		if err := zw.Close(); err != nil {
			return fmt.Errorf("compress recording: %w", err)
		}
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write recording: %w", err)
	}
	return nil
}

// ReadFile reads a recording WriteFile wrote.
func ReadFile(path string) ([]Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read recording: %w", err)
	}
	defer f.Close()
	var in io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("read recording %s: %w", path, err)
		}
		in = zr
	}
	var out []Record
	sc := bufio.NewScanner(in)
	sc.Buffer(nil, 64<<20)
	for n := 1; sc.Scan(); n++ {
		var rec Record
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		out = append(out, rec)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read recording %s: %w", path, err)
	}
	return out, nil
}
