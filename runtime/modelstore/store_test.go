package modelstore

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func put(t *testing.T, s Store, repo, file string, b []byte) {
	t.Helper()
	p := filepath.Join(s.RepoDir(repo), file)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestListShowRemove(t *testing.T) {
	s := Store{Dir: filepath.Join(t.TempDir(), "models")}
	if l, err := s.List(); err != nil || len(l) != 0 {
		t.Fatalf("empty: %v %v", l, err)
	}
	put(t, s, "aladar/tiny", "tiny.gguf", tinyModel(t))
	put(t, s, "aladar/tiny", "broken.gguf", []byte("nope"))
	put(t, s, "aladar/tiny", "big.gguf.part", []byte("half"))
	put(t, s, "zed/other", "x.gguf", tinyModel(t))
	l, err := s.List()
	if err != nil || len(l) != 2 || l[0].Name != "aladar/tiny" || l[1].Name != "zed/other" {
		t.Fatalf("list %+v %v", l, err)
	}
	files, err := s.Show("aladar/tiny")
	if err != nil || len(files) != 3 {
		t.Fatalf("show %+v %v", files, err)
	}
	byName := map[string]File{}
	for _, f := range files {
		byName[f.Name] = f
	}
	g := byName["tiny.gguf"].GGUF
	if g == nil || g.Architecture != "llama" || g.BlockCount != 1 || g.VocabSize != 32000 {
		t.Fatalf("tiny.gguf %+v", byName["tiny.gguf"])
	}
	if byName["broken.gguf"].Error == "" || !byName["big.gguf.part"].Partial {
		t.Fatalf("broken and partial: %+v", files)
	}
	if _, err := s.Show("aladar/none"); err == nil {
		t.Fatal("show of a missing repo")
	}
	if _, err := s.Remove(RemoveParams{Repo: "aladar/tiny"}); err == nil {
		t.Fatal("remove with nothing named")
	}
	if _, err := s.Remove(RemoveParams{Repo: "aladar/tiny", Files: []string{"tiny.gguf", "ghost.gguf"}}); err == nil {
		t.Fatal("remove of a missing file")
	}
	if _, err := os.Stat(filepath.Join(s.RepoDir("aladar/tiny"), "tiny.gguf")); err != nil {
		t.Fatal("a failed remove deleted a file")
	}
	r, err := s.Remove(RemoveParams{Repo: "aladar/tiny", Files: []string{"tiny.gguf", "broken.gguf"}, DeleteIfEmpty: true})
	if err != nil || r.DeletedRepo || !slices.Equal(r.DeletedFiles, []string{"tiny.gguf", "broken.gguf"}) {
		t.Fatalf("remove files: %+v %v", r, err)
	}
	r, err = s.Remove(RemoveParams{Repo: "aladar/tiny", Files: []string{"big.gguf"}, DeleteIfEmpty: true})
	if err != nil || !r.DeletedRepo || !slices.Equal(r.DeletedFiles, []string{"big.gguf.part"}) {
		t.Fatalf("remove the last file: %+v %v", r, err)
	}
	r, err = s.Remove(RemoveParams{Repo: "zed/other", DeleteRepo: true})
	if err != nil || !r.DeletedRepo {
		t.Fatalf("delete repo: %+v %v", r, err)
	}
	if l, _ := s.List(); len(l) != 0 {
		t.Fatalf("left %+v", l)
	}
	for _, bad := range []string{"../etc", "a/b/c", "a", "a/.."} {
		if _, err := s.Show(bad); err == nil {
			t.Errorf("repo %q accepted", bad)
		}
	}
}
