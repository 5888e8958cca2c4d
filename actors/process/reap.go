package process

import (
	"errors"
	"os/exec"
	"syscall"
	"time"
)

// reap waits for the program, kills what it left in its group, waits up to
// grace for the output to drain, then reports Exited and closes done. It
// always ends: the readers end with their pipes, which the grace closes.
func reap(g *group, out *outputs, grace time.Duration, tell func(any), done chan struct{}) {
	err := g.cmd.Wait()
	g.reaped()
	drained := make(chan struct{})
	go func() { out.wg.Wait(); close(drained) }()
	t := time.NewTimer(grace)
	select {
	case <-drained:
	case <-t.C:
		out.close() // something outside the group holds the pipes
		<-drained
	}
	t.Stop()
	tell(exited(g, err))
	close(done)
}

func exited(g *group, err error) *Exited {
	ex := &Exited{PID: g.cmd.Process.Pid, Code: -1}
	if st := g.cmd.ProcessState; st != nil {
		ex.Code = st.ExitCode()
		if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			ex.Signal = ws.Signal()
		}
	}
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		ex.Err = err
	}
	return ex
}
