//go:build troupe_faults

package persistence

import (
	"fmt"
	"os"
	"sync/atomic"
	"syscall"
	"time"
)

// checkpointFault lets a crash test land a SIGKILL inside a checkpoint. With
// $TROUPE_FAULT_CHECKPOINT_STOP set to a duration, a checkpoint still
// running that long after it started stops the whole process (SIGSTOP),
// after a line on stderr saying so; the test then kills it. A checkpoint
// that ends sooner is let go and the next one is tried. Only a binary
// built with -tags troupe_faults has it.
func checkpointFault() func() func() {
	after, err := time.ParseDuration(os.Getenv("TROUPE_FAULT_CHECKPOINT_STOP"))
	if err != nil {
		return nil
	}
	return func() func() {
		var running atomic.Bool
		running.Store(true)
		fired := make(chan struct{})
		go func() {
			defer close(fired)
			time.Sleep(after)
			if running.Load() {
				fmt.Fprintln(os.Stderr, "troupe fault: stopped inside a checkpoint")
				_ = syscall.Kill(os.Getpid(), syscall.SIGSTOP)
			}
		}()
		return func() {
			running.Store(false)
			<-fired // the goroutine ends before the checkpoint is done
		}
	}
}
