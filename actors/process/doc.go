// Package process owns one long-lived child process as an actor, in the
// spirit of ergo's meta.Port: the owner gets typed messages (Started, Line,
// Exited) and may send Terminate; the actor never blocks on the process.
//
// The program runs through runtime/proc, in a process group of its own,
// with a parent-death signal and a watcher that kills the whole group if
// troupe dies, even by SIGKILL. The group lives and dies with the program:
// when the program exits, whatever it left in its group is killed too. On
// Stopping (or Restarting) the actor kills the group, or, when
// Spec.StopGrace is set, sends SIGTERM and SIGKILL after the grace; it does
// not wait on its mailbox. A goroutine the actor owns waits for the
// program, drains its output (closing the pipes after Spec.PipeGrace if
// something escaped the group and holds them), sends Exited and then closes
// Started.Done. Reader goroutines end with the pipes they read.
//
// Every message to the owner is sent with the process actor as its sender,
// so an owner with several processes tells them apart by ctx.Sender().
// Started carries the pid and process group id: an owner that must kill
// the program after a crash of troupe records the group id and calls
// proc.KillGroup with it on recovery.
//
// Output comes as Line messages (stdout and stderr, each in order), or, with
// OutputStream, stdout is handed to the owner as a reader in Started: a
// protocol such as MCP stdio needs the byte stream itself, and chunks sent
// through a mailbox would have to be turned back into a reader, losing
// back-pressure on the way. Stderr may go to a writer instead (Spec.Stderr),
// when the owner wants it complete by the time Done closes rather than
// queued in its mailbox.
//
// With Spec.Outlive the program keeps running if troupe dies, its output
// going to a file; a later troupe owns it again with AdoptProps, which
// sends the same Started and Exited, watching the pid instead of waiting.
//
// After Exited the actor stays, holding the pipe ends it handed out, until
// it is stopped; stopping it closes them. A restart (after a panic) runs
// the program again, and the owner gets a new Started.
//
// Its users: a session's stdio MCP servers (actors/sessions/mcp), llama-server
// (actors/servers) and the daemon's plugin programs (actors/plugins).
package process
