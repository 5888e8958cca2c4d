package persistence

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

func TestServerRecords(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "troupe.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	self := NewServerRecord("tiny", os.Getpid(), os.Getpid(), "127.0.0.1", 18080)
	if !self.Running() || self.OwnerGone() || self.Started == 0 {
		t.Fatalf("a record of this process: %+v", self)
	}
	if err := s.RecordServer(ctx, self); err != nil {
		t.Fatal(err)
	}
	// A second config's server whose owner has exited.
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	orphan := self
	orphan.Name, orphan.OwnerPID, orphan.OwnerStarted = "orphan", dead.Process.Pid, 1
	if err := s.RecordServer(ctx, orphan); err != nil {
		t.Fatal(err)
	}
	got, err := s.Servers(ctx)
	if err != nil || len(got) != 2 || got[1].Name != "tiny" || got[1].Port != 18080 || got[1].Started != self.Started {
		t.Fatalf("servers %+v %v", got, err)
	}
	if !got[0].OwnerGone() || got[1].OwnerGone() {
		t.Fatalf("owner liveness: %v %v", got[0].OwnerGone(), got[1].OwnerGone())
	}
	if err := s.ForgetServer(ctx, "tiny", self.PID+1); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Servers(ctx); len(got) != 2 {
		t.Fatal("forgot a newer run's record")
	}
	if err := s.ForgetServer(ctx, "tiny", self.PID); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Servers(ctx); len(got) != 1 || got[0].Name != "orphan" {
		t.Fatalf("after forget: %+v", got)
	}
	if v := SchemaVersion(); v < 3 {
		t.Fatalf("schema version %d", v)
	}
}
