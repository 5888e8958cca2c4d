package jsonstream_test

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
	ls "github.com/troupehq/troupe/testkit/llmserver"
)

func usage(in, out int) ls.Step {
	return ls.ReportUsage(ls.Usage{PromptTokens: in, CompletionTokens: out})
}

// A turn with three tools in yolo mode: a write, an edit (a diff with its
// file path) and a command, then the answer.
func TestMultiToolTurn(t *testing.T) {
	e := newEnv(t,
		ls.Steps(ls.Thinking("plan: write, edit, check"), ls.Text("Working."),
			ls.ToolCall("c1", "write", args(map[string]any{"path": "hello.txt", "content": "hello\n"})),
			ls.ToolCall("c2", "edit", args(map[string]any{"path": "hello.txt", "old_string": "hello", "new_string": "hi"})),
			ls.ToolCall("c3", "bash", args(map[string]any{"command": "cat hello.txt"})), usage(20, 10)),
		ls.Steps(ls.Text("Done: "), ls.Text("it says hi."), usage(40, 5)),
	)
	c := e.start("--auto-approve")
	c.expect("ready")
	c.send(`{"type":"message","msg_id":"m1","input":"write hello.txt, then change it","files":["/tmp/spec.md"]}`)
	c.expect("stream_end")
	testkit.Equal(t, c.end(), 0)
	e.golden("multi_tool")
	reqs := e.srv.ChatRequests()
	if body := string(reqs[0].Body); !strings.Contains(body, `[Attached files]\n/tmp/spec.md`) {
		t.Fatalf("the attached file is not named to the model: %s", body)
	}
}

// In default mode exec needs approval: approve once, deny with a reason,
// approve always (the next exec call is not asked), and the model hears
// the denial.
func TestApprovals(t *testing.T) {
	bash := func(id, cmd string) ls.Step {
		return ls.ToolCall(id, "bash", args(map[string]any{"command": cmd}))
	}
	e := newEnv(t,
		ls.Steps(bash("c1", "echo one"), bash("c2", "echo two")),
		ls.Steps(bash("c3", "echo three")),
		ls.Steps(bash("c4", "echo four")),
		ls.Steps(ls.Text("All done.")),
	)
	c := e.start()
	c.expect("ready")
	c.send(`{"type":"message","msg_id":"m1","input":"run things"}`)
	// Both requests of the step come before either call runs; answering
	// the second first shows they are independent (and keeps the
	// transcript deterministic: c1 runs only once both answers are in).
	c.expect("tool_request", "call_id", "c1")
	c.expect("tool_request", "call_id", "c2")
	c.send(`{"type":"tool_deny","call_id":"c2","reason":"not that one"}`)
	c.expect("tool_cancelled", "call_id", "c2")
	c.send(`{"type":"tool_approve","call_id":"c1","scope":"once"}`)
	c.expect("tool_request", "call_id", "c3")
	c.send(`{"type":"tool_approve","call_id":"c3","scope":"always"}`)
	c.expect("stream_end")
	c.send(`{"type":"tool_approve","call_id":"c3"}`)
	c.expect("error")
	testkit.Equal(t, c.end(), 0)
	e.golden("approvals")
	reqs := e.srv.ChatRequests()
	if body := string(reqs[1].Body); !strings.Contains(body, "Permission denied: not that one") {
		t.Fatalf("the model was not told of the denial: %s", body)
	}
}

// stop aborts a response mid-stream with stream_end; the process stays and
// answers the next message.
func TestStopThenAnotherMessage(t *testing.T) {
	e := newEnv(t,
		ls.Steps(ls.Text("Thinking about it"), ls.Delay(30*time.Second), ls.Text(" never said")),
		ls.Steps(ls.Text("Second answer."), usage(9, 3)),
	)
	c := e.start()
	c.expect("ready")
	c.send(`{"type":"stop"}`)
	c.expect("info")
	c.send(`{"type":"message","msg_id":"m1","input":"take your time"}`)
	c.expect("text_delta")
	c.send(`{"type":"stop"}`)
	c.expect("stream_end")
	c.send(`{"type":"message","msg_id":"m2","input":"quick one"}`)
	c.expect("stream_end")
	testkit.Equal(t, c.end(), 0)
	e.golden("stop")
}

// Two 503s are retried (info each time); the third attempt answers.
func TestRetryAfter503s(t *testing.T) {
	e := newEnv(t,
		ls.Steps(ls.HTTPError(ls.APIError{Status: 503, Message: "busy"})),
		ls.Steps(ls.HTTPError(ls.APIError{Status: 503, Message: "still busy"})),
		ls.Steps(ls.Text("Here at last."), usage(7, 3)),
	)
	c := e.start()
	c.expect("ready")
	c.send(`{"type":"message","msg_id":"m1","input":"hello?"}`)
	c.expect("stream_end")
	testkit.Equal(t, c.end(), 0)
	e.golden("retry")
}

// A permanent provider error is an error event with retryable false.
func TestProviderErrorIsNotRetryable(t *testing.T) {
	e := newEnv(t, ls.Steps(ls.HTTPError(ls.APIError{Status: 401, Message: "bad key"})))
	c := e.start()
	c.expect("ready")
	c.send(`{"type":"message","msg_id":"m1","input":"hello?"}`)
	c.expect("stream_end")
	testkit.Equal(t, c.end(), 0)
	e.golden("provider_error")
}

// init_history becomes context of the first message (after the
// --system-prompt); after that message it is refused.
func TestInitHistory(t *testing.T) {
	e := newEnv(t, ls.Steps(ls.Text("You asked about X.")))
	c := e.start("--system-prompt", "You are terse.")
	c.expect("ready")
	c.send(`{"type":"init_history","text":"Previous conversation summary:\nUser asked about X."}`)
	c.send(`{"type":"message","msg_id":"m1","input":"what did I ask?"}`)
	c.expect("stream_end")
	c.send(`{"type":"init_history","text":"too late"}`)
	c.expect("error")
	testkit.Equal(t, c.end(), 0)
	e.golden("init_history")
	reqs := e.srv.ChatRequests()
	if body := string(reqs[0].Body); !strings.Contains(body, "User asked about X.") || !strings.Contains(body, "You are terse.") {
		t.Fatalf("the history or the system prompt did not reach the model: %s", body)
	}
}

// set_mode yolo: the next exec call runs without a tool_request.
func TestSetMode(t *testing.T) {
	e := newEnv(t,
		ls.Steps(ls.ToolCall("c1", "bash", args(map[string]any{"command": "echo ran"}))),
		ls.Steps(ls.Text("It ran.")),
	)
	c := e.start()
	c.expect("ready")
	c.send(`{"type":"set_mode","mode":"yolo"}`)
	c.expect("config_changed")
	c.send(`{"type":"set_mode","mode":"reckless"}`)
	c.expect("error")
	c.send(`{"type":"message","msg_id":"m1","input":"run it"}`)
	c.expect("stream_end")
	testkit.Equal(t, c.end(), 0)
	e.golden("set_mode")
}

// Bad input never kills the conversation and always gets protocol_error.
func TestProtocolErrors(t *testing.T) {
	e := newEnv(t, ls.Steps(ls.Text("Still here.")))
	c := e.start()
	c.expect("ready")
	for _, l := range []string{
		`{"type":"message","msg_id":"m0"`,
		`{"type":"foo"}`,
		`{"type":"message","msg_id":"m0"}`,
		`{"type":"message","msg_id":7,"input":"x"}`,
		`[1,2]`,
		`{"type":"tool_approve","call_id":"nope"}`,
		`{"type":"ping"}`,
	} {
		c.send(l)
		if strings.Contains(l, "ping") {
			c.expect("pong")
		} else {
			c.expect("error")
		}
	}
	c.send(`{"type":"message","msg_id":"m1","input":"are you alive?"}`)
	c.expect("stream_end")
	testkit.Equal(t, c.end(), 0)
	e.golden("protocol_errors")
}

// A second process resumes the session (by id and by latest) with its
// history; --session-id refuses an existing id.
func TestResumeAfterExit(t *testing.T) {
	e := newEnv(t, ls.Steps(ls.Text("Nice to meet you, Ada.")), ls.Steps(ls.Text("You are Ada.")))
	c := e.start("--session-id", "conv-1")
	c.expect("ready")
	c.send(`{"type":"message","msg_id":"m1","input":"I am Ada"}`)
	c.expect("stream_end")
	testkit.Equal(t, c.end(), 0)

	c = e.start("--session-id", "conv-1")
	testkit.Equal(t, c.drain(), 2)

	c = e.start("--resume", "latest")
	c.expect("ready")
	c.send(`{"type":"message","msg_id":"m2","input":"who am I?"}`)
	c.expect("stream_end")
	testkit.Equal(t, c.end(), 0)
	e.golden("resume")

	// The session is an ordinary one: `troupe events` shows its log.
	p := testkit.Start(t, e.bin, nil, "events", "conv-1", "--home", e.home)
	n := 0
	for range p.Lines() {
		n++
	}
	testkit.Equal(t, p.Wait(t, 30*time.Second), 0)
	if n < 10 {
		t.Fatalf("troupe events shows %d events of the json-stream session", n)
	}
	reqs := e.srv.ChatRequests()
	if body := string(reqs[1].Body); !strings.Contains(body, "I am Ada") || !strings.Contains(body, "Nice to meet you, Ada.") {
		t.Fatalf("the resumed request lacks the first exchange: %s", body)
	}
}

// SIGKILL in the middle of a tool call; a new process with --resume
// continues the run under its msg_id with the full history.
func TestSIGKILLMidTurnThenResume(t *testing.T) {
	e := newEnv(t,
		ls.Steps(ls.Text("Step one."), ls.ToolCall("c1", "bash", args(map[string]any{"command": "echo first"}))),
		ls.Steps(ls.ToolCall("c2", "bash", args(map[string]any{"command": "sleep 30"}))),
		ls.Steps(ls.Text("Recovered and done."), usage(50, 4)),
	)
	c := e.start("--auto-approve", "--session-id", "crashy")
	c.expect("ready")
	c.send(`{"type":"message","msg_id":"m1","input":"two steps please"}`)
	c.expect("tool_running", "call_id", "c2")
	c.p.Kill()
	c.e.lines = append(c.e.lines, "SIGKILL")
	c.drain()

	c = e.start("--resume", "crashy")
	c.expect("stream_end")
	testkit.Equal(t, c.end(), 0)
	e.golden("sigkill_resume")
	reqs, err := e.srv.WaitChatRequests(context.Background(), 3)
	testkit.NoError(t, err)
	body := string(reqs[2].Body)
	for _, want := range []string{"two steps please", "Step one.", "first", "Interrupted: troupe restarted"} {
		if !strings.Contains(body, want) {
			t.Fatalf("the resumed request lacks %q: %s", want, body)
		}
	}
}

// SIGTERM aborts the running response, writes its end and exits cleanly.
func TestSIGTERM(t *testing.T) {
	e := newEnv(t, ls.Steps(ls.Text("Long"), ls.Delay(30*time.Second), ls.Text(" answer")))
	c := e.start()
	c.expect("ready")
	c.send(`{"type":"message","msg_id":"m1","input":"go on"}`)
	c.expect("text_delta")
	c.p.Signal(syscall.SIGTERM)
	c.e.lines = append(c.e.lines, "SIGTERM")
	testkit.Equal(t, c.drain(), 0)
	e.golden("sigterm")
}

// A config error is reported on stdout and the process exits non-zero.
func TestConfigError(t *testing.T) {
	e := newEnv(t)
	c := e.start("--resume", "no-such-session")
	testkit.Equal(t, c.drain(), 2)
	e.golden("config_error")
}

// stop while a call waits for approval cancels the call and ends the
// response; set_mode during a response says when it applies.
func TestStopDuringApproval(t *testing.T) {
	e := newEnv(t,
		ls.Steps(ls.ToolCall("c1", "bash", args(map[string]any{"command": "rm -rf build"}))),
		ls.Steps(ls.Text("Fine.")),
	)
	c := e.start()
	c.expect("ready")
	c.send(`{"type":"message","msg_id":"m1","input":"clean up"}`)
	c.expect("tool_request")
	c.send(`{"type":"set_mode","mode":"auto_edit"}`)
	c.expect("config_changed")
	c.send(`{"type":"stop"}`)
	c.expect("stream_end")
	c.send(`{"type":"message","msg_id":"m2","input":"never mind"}`)
	c.expect("stream_end")
	testkit.Equal(t, c.end(), 0)
	e.golden("stop_during_approval")
}

// EOF during a response aborts it, writes its stream_end and exits 0; the
// alias `troupe json-stream` is the same command.
func TestEOFMidResponse(t *testing.T) {
	e := newEnv(t, ls.Steps(ls.Text("Long"), ls.Delay(30*time.Second), ls.Text(" answer")))
	c := e.start("--max-line", "200")
	c.expect("ready")
	c.send(`{"type":"message","msg_id":"m0","input":"` + strings.Repeat("x", 300) + `"}`)
	c.expect("error")
	c.send(`{"type":"message","msg_id":"m1","input":"go on"}`)
	c.expect("text_delta")
	testkit.Equal(t, c.end(), 0)
	e.golden("eof")

	p := testkit.Start(t, e.bin, nil, "json-stream", "--home", e.home, "--bogus")
	line, _ := p.ReadLine(30 * time.Second)
	testkit.Equal(t, p.Wait(t, 30*time.Second), 2)
	if !strings.Contains(line, `"code":"config_error"`) || !strings.Contains(line, "bogus") {
		t.Fatalf("bad flag: %s", line)
	}
}

// A message sent while another streams waits its turn: its stream_start
// follows the first one's stream_end.
func TestMessageWhileStreaming(t *testing.T) {
	e := newEnv(t,
		ls.Steps(ls.Text("First"), ls.Delay(500*time.Millisecond), ls.Text(" answer.")),
		ls.Steps(ls.Text("Second answer.")),
	)
	c := e.start()
	c.expect("ready")
	c.send(`{"type":"message","msg_id":"m1","input":"one"}`)
	c.expect("text_delta")
	c.send(`{"type":"message","msg_id":"m2","input":"two"}`)
	c.send(`{"type":"message","msg_id":"m1","input":"one again"}`)
	c.expect("error")
	c.expect("stream_end", "msg_id", "m2")
	testkit.Equal(t, c.end(), 0)
	e.golden("queued_message")
}
