package plugins

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestDelayDoublesUpToTheCap(t *testing.T) {
	o := Options{}.withDefaults()
	want := []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second,
		16 * time.Second, 32 * time.Second, time.Minute, time.Minute}
	for i, w := range want {
		if got := o.backoff().Delay(i); got != w {
			t.Errorf("delay(%d) = %s, want %s", i, got, w)
		}
	}
}

func TestTokensLiveUntilRevoked(t *testing.T) {
	ts := NewTokens()
	id := Identity{Kind: KindTransformer, Name: "t"}
	tok := ts.mint(id)
	if got, ok := ts.Lookup(tok); !ok || got != id {
		t.Fatalf("Lookup = %v %v", got, ok)
	}
	ts.SetVersion(id, "1.0")
	if ts.version(id) != "1.0" {
		t.Fatal("version not kept")
	}
	if _, ok := ts.Lookup(tok[:len(tok)-1]); ok {
		t.Fatal("a prefix of the token is accepted")
	}
	ts.revoke(tok)
	if _, ok := ts.Lookup(tok); ok {
		t.Fatal("a revoked token is accepted")
	}
	if ts.version(id) != "" {
		t.Fatal("the version outlived the process")
	}
}

func TestSpecValidate(t *testing.T) {
	s := Spec{Name: "my-ext.v2"}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	if len(s.Command) != 1 || s.Command[0] != "my-ext.v2" || !*s.Enabled {
		t.Fatalf("defaults: %+v", s)
	}
	for _, bad := range []Spec{{Name: ""}, {Name: "a b"}, {Name: "a/b"}, {Name: "x", Command: []string{""}}} {
		if err := bad.Validate(); !errors.Is(err, ErrInvalid) {
			t.Errorf("%+v: %v, want ErrInvalid", bad, err)
		}
	}
}

func TestLoadConfig(t *testing.T) {
	home := t.TempDir()
	if c, err := LoadConfig(home); err != nil || len(c.Extensions) != 0 {
		t.Fatalf("no file: %+v %v", c, err)
	}
	yml := "extensions:\n  - name: ext\n    command: [node, x.mjs]\n    env: {A: b}\ntransformers:\n  - name: tr\n    enabled: false\n" +
		"defaultTransformers: [tr]\nclaimTimeout: 2s\nsomeoneElses: 1\n"
	if err := os.WriteFile(filepath.Join(home, ConfigFile), []byte(yml), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := LoadConfig(home)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Extensions) != 1 || c.Extensions[0].Command[1] != "x.mjs" || c.Extensions[0].Env["A"] != "b" ||
		len(c.Transformers) != 1 || *c.Transformers[0].Enabled || c.DefaultTransformers[0] != "tr" || c.ClaimTimeout != 2*time.Second {
		t.Fatalf("config %+v", c)
	}
	bad := "extensions:\n  - name: 'bad name'\n  - name: '.'\n  - name: ok\ntransformers:\n  - name: '..'\n  - name: '...'\n  - name: .hidden\n"
	if err := os.WriteFile(filepath.Join(home, ConfigFile), []byte(bad), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err = LoadConfig(home)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Extensions) != 1 || c.Extensions[0].Name != "ok" || len(c.Transformers) != 1 || c.Transformers[0].Name != ".hidden" || len(c.Skipped) != 4 {
		t.Fatalf("bad names in config.yml: %+v", c)
	}
}

func TestSaveSpecKeepsTheRestOfTheFile(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, ConfigFile)
	orig := "# my daemon\ndefaultTransformers: [a]\nsomeoneElses:\n  x: 1 # keep me\ntransformers:\n  - name: a\n"
	if err := os.WriteFile(path, []byte(orig), 0o600); err != nil {
		t.Fatal(err)
	}
	b := Spec{Name: "b", Command: []string{"node", "b.mjs"}, Env: map[string]string{"K": "v"}}
	if err := b.Validate(); err != nil {
		t.Fatal(err)
	}
	if err := saveSpec(home, KindTransformer, b, false); err != nil {
		t.Fatal(err)
	}
	if err := saveSpec(home, KindExtension, Spec{Name: "e"}, false); err != nil {
		t.Fatal(err)
	}
	c, err := LoadConfig(home)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Transformers) != 2 || c.Transformers[1].Command[1] != "b.mjs" || c.Transformers[1].Env["K"] != "v" ||
		len(c.Extensions) != 1 || c.DefaultTransformers[0] != "a" {
		t.Fatalf("after adding: %+v", c)
	}
	if err := saveSpec(home, KindTransformer, Spec{Name: "a"}, true); err != nil {
		t.Fatal(err)
	}
	c, err = LoadConfig(home)
	if err != nil || len(c.Transformers) != 1 || c.Transformers[0].Name != "b" {
		t.Fatalf("after removing: %+v %v", c, err)
	}
	out, _ := os.ReadFile(path)
	for _, keep := range []string{"# my daemon", "# keep me", "someoneElses"} {
		if !strings.Contains(string(out), keep) {
			t.Errorf("lost %q:\n%s", keep, out)
		}
	}
}
