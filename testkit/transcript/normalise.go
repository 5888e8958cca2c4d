package transcript

import (
	"fmt"
	"regexp"
	"strings"
)

// Normaliser rewrites the parts of protocol lines that change from run to
// run, so that a transcript compares byte for byte. It is the one filter
// every transport's transcripts go through; its rules, in the order they
// apply to each line:
//
//  1. Paths and addresses: each registered literal (the scripted LLM
//     server's URL, the data home, $WORK) becomes its $NAME, the
//     longest first, so a home inside $WORK reads $TROUPE_HOME/...
//  2. Ids: session ids (s-<base32>) become $S1, $S2 ...; message, entry,
//     compaction and ACP client ids (msg-<hex>, compact-<hex>,
//     client-<hex>) and rpc's generated
//     request ids (rpc-N-N) become $M1, $M2 ..., numbered by first
//     appearance over the whole transcript, so a reader still sees
//     which ids are the same. Lines sent later may use the same
//     placeholders (Expand).
//  3. Times, durations, pids and ports: the value of a JSON member named
//     timestamp, createdAt, created_at, updatedAt, updated_at, pid, port,
//     durationMs, duration_ms, recordedAt, enqueuedAt, amendedAt or
//     raisedAt becomes 0 (a number) or "0" (a string); ports because the
//     servers troupe starts get free ones.
//     Durations a protocol derives from its own settings (rpc's retry
//     delayMs) are deterministic and stay.
//  4. Long strings: a JSON string of 300 bytes or more becomes its first
//     39 bytes, "…" and its length, to keep the transcript readable.
//
// Rules 2 and 3 work on the text, not on parsed JSON, so that everything
// else in a line (key order, spacing, escapes) stays as the program wrote
// it.
type Normaliser struct {
	literals []literal
	ids      map[string]string // real id -> placeholder name
	real     map[string]string // placeholder name -> real id
	counts   map[string]int    // per kind
}

type literal struct{ text, name string }

// NewNormaliser returns a Normaliser with no literals and no ids seen.
func NewNormaliser() *Normaliser {
	return &Normaliser{ids: map[string]string{}, real: map[string]string{}, counts: map[string]int{}}
}

// Literal registers text (a path or an address) to be shown as $name.
func (n *Normaliser) Literal(text, name string) {
	if text == "" {
		return
	}
	n.literals = append(n.literals, literal{text, name})
	// Longest first: a path inside another must be replaced before it.
	for i := len(n.literals) - 1; i > 0 && len(n.literals[i].text) > len(n.literals[i-1].text); i-- {
		n.literals[i], n.literals[i-1] = n.literals[i-1], n.literals[i]
	}
}

var (
	// idPattern is every generated id troupe's protocols show; a transport
	// whose ids have another shape adds it here, with its kind in idKind.
	idPattern  = regexp.MustCompile(`\b(s-[a-z2-7]{20,30}|rpc-\d+-\d+|(?:msg|compact|client)-[0-9a-f]+)\b`)
	volatile   = regexp.MustCompile(`"(timestamp|createdAt|created_at|updatedAt|updated_at|pid|port|durationMs|duration_ms|recordedAt|enqueuedAt|amendedAt|raisedAt)":(-?\d+(?:\.\d+)?|"(?:[^"\\]|\\.)*")`)
	longString = regexp.MustCompile(`"(?:[^"\\]|\\.){300,}?"`)
)

// idKind is the placeholder letter of an id: S for sessions, M for the
// rest.
func idKind(id string) string {
	if strings.HasPrefix(id, "s-") {
		return "S"
	}
	return "M"
}

// Line returns line with its volatile parts normalised.
func (n *Normaliser) Line(line string) string {
	line = n.IDs(line)
	line = volatile.ReplaceAllStringFunc(line, func(m string) string {
		key, value, _ := strings.Cut(m, ":")
		if strings.HasPrefix(value, `"`) {
			return key + `:"0"`
		}
		return key + ":0"
	})
	return longString.ReplaceAllStringFunc(line, func(q string) string {
		return fmt.Sprintf(`"%s…(%d bytes)"`, q[1:40], len(q)-2)
	})
}

// IDs applies rules 1 and 2 alone, numbering new ids as Line does: a
// recorded line to be sent again goes through it before Expand.
func (n *Normaliser) IDs(line string) string {
	line = n.literal(line)
	return idPattern.ReplaceAllStringFunc(line, func(id string) string {
		if h, ok := n.ids[id]; ok {
			return "$" + h
		}
		kind := idKind(id)
		n.counts[kind]++
		h := fmt.Sprintf("%s%d", kind, n.counts[kind])
		n.ids[id], n.real[h] = h, id
		return "$" + h
	})
}

// literal applies rule 1 alone; it is also how a command line is shown.
func (n *Normaliser) literal(s string) string {
	for _, l := range n.literals {
		s = strings.ReplaceAll(s, l.text, "$"+l.name)
	}
	return s
}

var reference = regexp.MustCompile(`\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))`)

// Expand replaces $NAME and ${NAME} in a line to send: an id placeholder
// the transcript has shown becomes the real id, else a variable that
// lookup knows (non-empty) becomes its value; anything else stays as
// written, so a literal $ in a message needs no escaping.
func (n *Normaliser) Expand(s string, lookup func(string) string) string {
	return reference.ReplaceAllStringFunc(s, func(ref string) string {
		m := reference.FindStringSubmatch(ref)
		name := m[1] + m[2]
		if id, ok := n.real[name]; ok {
			return id
		}
		if v := lookup(name); v != "" {
			return v
		}
		return ref
	})
}
