// Package sim runs scenarios against the troupe daemon: many sessions, each
// with a scripted model (testkit/llmserver's script format), prompts at
// chosen times, clients attaching, detaching and reattaching after_message
// over ACP WebSocket, approval answers, and faults at chosen times or drawn
// from a seed. It checks the daemon's promises as it goes and at the end,
// and reports what it found. `troupe sim` is its command line.
//
// A scenario file:
//
//	name: crash-and-reattach
//	seed: 7                  # --seed overrides; same seed, same plan
//	approval_mode: default   # the daemon's: default | auto_edit | yolo
//	settle: 60s              # how long the end waits for prompts to end
//	sessions:
//	  - name: worker
//	    count: 3             # worker-1 … worker-3
//	    clients: 2           # the first creates the session, the others attach full
//	    approve: allow       # how permission requests are answered: allow | deny
//	    model:               # an llmserver script, per session
//	      replies:
//	        - steps: [{tool_call: {id: c1, name: bash, arguments: {command: "echo 1 >> effects/c1"}}}]
//	      default: {steps: [{text: "done"}]}
//	    prompts:
//	      - {at: 0s, text: "go"}
//	      - {at: 50ms, text: "next", position: head, update_at: 60ms, update_text: "edited"}
//	      - {at: 100ms, text: "tick", every: 200ms, count: 5}
//	      - {at: 70ms, text: "never mind", cancel_at: 80ms}
//	    detach: [{client: 2, at: 300ms, reattach_after: 200ms}]
//	faults:
//	  - {at: 400ms, kind: kill_daemon}
//	  - {at: 1s, kind: drop_client, session: worker}       # one of worker-N, by the seed
//	  - {at: 2s, every: 1s, count: 3, kind: kill_llm, for: 300ms}
//	random: {count: 3, kinds: [kill_session, kill_tool, drop_client], from: 200ms, to: 3s}
//
// Fault kinds: kill_daemon (SIGKILL, the store checked while nothing
// writes, a new daemon on the same home, every client reattached
// after_message), kill_session (REST kill: the actor stops; its clients
// reattach, which brings it back), kill_tool (SIGKILL of the processes
// running in the session's directory), kill_llm (the scripted model server
// cuts every stream and answers 503 for `for`), drop_client (a client's
// socket closed at once; it reattaches after_message `for` later, at least
// 100 ms). ACP has no steer or follow-up delivery: position head is the
// nearest, a prompt put first in the queue.
//
// The invariants: every event a client was shown is in the store after
// each crash and at the end; every client saw each update once and in seq
// order, and its text is what a fresh full attach replays; every bash call
// completed with success whose command appends to effects/NAME (in the
// session's directory) ran once (the file has one line per such call);
// every prompt ends (a run ended with a stop reason or error, or a cancel
// with its reason) and none vanish; no process is left in the run's
// directories and the simulator's goroutines are back to their count after
// shutdown, which exits 0; PRAGMA integrity_check is ok after each crash
// and at the end. The daemon dies only when killed: one that exits on its
// own, or stops answering /v1/health for 10 s (it is sent SIGQUIT, and the
// report counts its goroutines by where they wait), is a violation, and
// another is started so the run goes on. With --work each daemon's stderr
// is kept there (daemon-N.stderr).
//
// It is played by one goroutine; a daemon restart holds a lock the other
// actions share, and each client's socket has its own reader goroutine,
// ended by closing the socket. The invariants are checked on the store file
// read-only (after each SIGKILL, while nothing writes) and on what each
// client recorded. It is linked into the production binary, so it and what
// it imports (testkit/llmserver, testkit/subprocess) stay off package
// testing and off testkit itself; cmd/troupe's TestBinaryLinksNoTesting
// keeps it so.
package sim
