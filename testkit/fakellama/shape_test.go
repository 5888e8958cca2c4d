package fakellama

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// shape renders JSON with its keys in order and every value replaced by
// its type, so that two answers compare by structure: what a client parses.
// timings are skipped whole: the fake reports fewer of them.
func shape(t *testing.T, b []byte) string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var out strings.Builder
	var walk func() error
	walk = func() error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch v := tok.(type) {
		case json.Delim:
			out.WriteString(v.String())
			for dec.More() {
				if v == '{' {
					key, _ := dec.Token()
					fmt.Fprintf(&out, "%s:", key)
					if key == "timings" {
						var skip json.RawMessage
						if err := dec.Decode(&skip); err != nil {
							return err
						}
						out.WriteString("T,")
						continue
					}
				}
				if err := walk(); err != nil {
					return err
				}
				out.WriteString(",")
			}
			end, _ := dec.Token()
			out.WriteString(end.(json.Delim).String())
		case string:
			out.WriteString("s")
		case json.Number:
			out.WriteString("n")
		case bool:
			out.WriteString("b")
		case nil:
			out.WriteString("null")
		}
		return nil
	}
	if err := walk(); err != nil {
		t.Fatalf("shape of %s: %v", b, err)
	}
	return out.String()
}

// frameShapes is an SSE body's frames as shapes, runs of one shape
// counted once (the number of tokens is free).
func frameShapes(t *testing.T, sse []byte) []string {
	t.Helper()
	var out []string
	for _, block := range strings.Split(strings.TrimSuffix(string(sse), "\n\n"), "\n\n") {
		data, ok := strings.CutPrefix(block, "data: ")
		if !ok {
			t.Fatalf("frame %q is not a data line", block)
		}
		s := "[DONE]"
		if data != "[DONE]" {
			s = shape(t, []byte(data))
		}
		if len(out) == 0 || out[len(out)-1] != s {
			out = append(out, s)
		}
	}
	return out
}

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func topKeys(t *testing.T, b []byte) []string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}
