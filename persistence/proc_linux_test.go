package persistence

import "testing"

func TestProcessAliveSeesExitAndReuse(t *testing.T) {
	pid, kill := holderProcess(t)
	start := procStart(pid)
	if !processAlive(pid, start) {
		t.Fatal("a running process is not alive")
	}
	if processAlive(pid, start+1) {
		t.Fatal("another start time counts as the same process")
	}
	kill()
	if processAlive(pid, start) {
		t.Fatal("an exited process is alive")
	}
}
