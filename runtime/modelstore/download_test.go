package modelstore

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDownloadInterruptedThenResumedToAVerifiedFile(t *testing.T) {
	model := tinyModel(t)
	h, url := newHub(t, map[string][]byte{"tiny.gguf": model})
	h.token = "hf_test"
	s := Store{Dir: t.TempDir()}
	d := Downloader{Endpoint: url, Token: "hf_test"}

	var first []Progress
	h.cutAt = 700_000
	_, err := s.Add(context.Background(), d, "aladar/tiny", []string{"tiny.gguf"}, func(p Progress) { first = append(first, p) })
	if err == nil || !strings.Contains(err.Error(), "interrupted") {
		t.Fatalf("first attempt: %v", err)
	}
	part := filepath.Join(s.RepoDir("aladar/tiny"), "tiny.gguf.part")
	st, err := os.Stat(part)
	if err != nil || st.Size() != 700_000 {
		t.Fatalf("part after the cut: %v %v", st, err)
	}

	var second []Progress
	added, err := s.Add(context.Background(), d, "aladar/tiny", []string{"tiny.gguf"}, func(p Progress) { second = append(second, p) })
	if err != nil {
		t.Fatal(err)
	}
	if h.ranges[len(h.ranges)-1] != "bytes=700000-" {
		t.Fatalf("resume asked for %q", h.ranges)
	}
	a := added[0]
	if a.ResumedFrom != 700_000 || a.Size != int64(len(model)) || len(a.SHA256) != 64 {
		t.Fatalf("added %+v", a)
	}
	got, err := os.ReadFile(a.Path)
	if err != nil || !bytes.Equal(got, model) {
		t.Fatalf("downloaded file differs from the served one (%v)", err)
	}
	if _, err := os.Stat(part); !os.IsNotExist(err) {
		t.Fatalf("part left behind: %v", err)
	}
	for i, run := range [][]Progress{first, second} {
		if len(run) < 2 {
			t.Fatalf("run %d: %d progress reports", i, len(run))
		}
		for j := 1; j < len(run); j++ {
			if run[j].Downloaded < run[j-1].Downloaded || run[j].Total != int64(len(model)) {
				t.Fatalf("run %d not monotonic: %+v", i, run)
			}
		}
	}
	if second[0].Downloaded != 700_000 || !second[len(second)-1].Done || second[len(second)-1].Downloaded != int64(len(model)) {
		t.Fatalf("second run's reports %+v", second)
	}
	// The downloaded model shows as one: a reader of the new file.
	files, err := s.Show("aladar/tiny")
	if err != nil || len(files) != 1 || files[0].GGUF == nil || files[0].GGUF.Architecture != "llama" {
		t.Fatalf("show: %+v %v", files, err)
	}
	// Asked again, it is already there: no request for its bytes.
	n := len(h.ranges)
	if again, err := s.Add(context.Background(), d, "aladar/tiny", []string{"tiny.gguf"}, nil); err != nil || !again[0].Present || len(h.ranges) != n {
		t.Fatalf("second add: %+v %v", again, err)
	}
}

func TestDownloadRefusesCorruptBytesAndMissingToken(t *testing.T) {
	model := tinyModel(t)
	h, url := newHub(t, map[string][]byte{"tiny.gguf": model})
	s := Store{Dir: t.TempDir()}
	d := Downloader{Endpoint: url}
	// A part whose bytes are not the file's: the resume completes it, the
	// hash tells, and the part is deleted so the next try starts clean.
	part := filepath.Join(s.RepoDir("a/b"), "tiny.gguf.part")
	if err := os.MkdirAll(filepath.Dir(part), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(part, bytes.Repeat([]byte{'x'}, 1000), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Add(context.Background(), d, "a/b", []string{"tiny.gguf"}, nil); err == nil || !strings.Contains(err.Error(), "sha256") {
		t.Fatalf("corrupt part: %v", err)
	}
	if _, err := os.Stat(part); !os.IsNotExist(err) {
		t.Fatalf("corrupt part kept: %v", err)
	}
	if _, err := s.Add(context.Background(), d, "a/b", []string{"tiny.gguf"}, nil); err != nil {
		t.Fatalf("clean retry: %v", err)
	}
	h.token = "needed"
	if _, err := s.Add(context.Background(), d, "a/c", []string{"tiny.gguf"}, nil); err == nil || !strings.Contains(err.Error(), "token") {
		t.Fatalf("no token: %v", err)
	}
	if _, err := s.Add(context.Background(), Downloader{Endpoint: url, Token: "needed"}, "a/c", []string{"nope.gguf"}, nil); err == nil || !strings.Contains(err.Error(), "no such repo or file") {
		t.Fatalf("missing file: %v", err)
	}
	for _, bad := range []string{"../x.gguf", "/etc/passwd", "a/../../x"} {
		if _, err := s.Add(context.Background(), d, "a/b", []string{bad}, nil); err == nil {
			t.Errorf("file %q accepted", bad)
		}
	}
}
