package llmserver

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestRecordsRequests(t *testing.T) {
	s := startT(t, Script{Replies: []Reply{Steps(Text("a")), Steps(Text("b"))}})
	body := `{"model":"m","messages":[{"role":"user","content":"hi"},{"role":"tool","tool_call_id":"call_1","content":"42"}],` +
		`"tools":[{"type":"function","function":{"name":"read_file","parameters":{"type":"object"}}}],"stream":true}`
	do(t, http.MethodGet, s.URL()+"/health?verbose=1", "", nil)
	do(t, http.MethodPost, s.URL()+"/v1/chat/completions", body, map[string]string{"X-Session-ID": "sess-7"})

	reqs, err := s.WaitRequests(waitCtx(t), 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	h := reqs[0]
	if h.Seq != 0 || h.Method != http.MethodGet || h.Path != "/health" || h.RawQuery != "verbose=1" || h.IsChat() || h.Reply != NoReply {
		t.Errorf("health record %+v", h)
	}
	c := reqs[1]
	if c.Seq != 1 || !c.IsChat() || c.Reply != 0 || c.Header.Get("X-Session-ID") != "sess-7" || string(c.Body) != body {
		t.Errorf("chat record %+v", c)
	}
	tools, _ := c.JSON["tools"].([]any)
	if len(tools) != 1 {
		t.Errorf("JSON tools %v", c.JSON["tools"])
	}
	var typed struct {
		Messages []struct {
			Role       string `json:"role"`
			ToolCallID string `json:"tool_call_id"`
		} `json:"messages"`
	}
	if err := c.Decode(&typed); err != nil {
		t.Fatal(err)
	}
	if len(typed.Messages) != 2 || typed.Messages[1].ToolCallID != "call_1" {
		t.Errorf("decoded %+v", typed)
	}
	chats := s.ChatRequests()
	if len(chats) != 1 || chats[0].Seq != 1 {
		t.Errorf("ChatRequests %+v", chats)
	}
	done, err := s.WaitDone(waitCtx(t), 1)
	if err != nil || done.Outcome != OutcomeOK {
		t.Errorf("WaitDone: %v, outcome %q", err, done.Outcome)
	}

	// Records are copies: changing one changes nothing in the server.
	reqs[1].Header.Set("X-Session-ID", "changed")
	if s.Requests()[1].Header.Get("X-Session-ID") != "sess-7" {
		t.Error("a returned record shares its header with the server")
	}
}

func TestWaitRequestsConcurrent(t *testing.T) {
	s := startT(t, Script{Default: &Reply{Steps: []Step{Text("x")}}})
	const n = 8
	var wg sync.WaitGroup
	got := make(chan []Request, 1)
	go func() {
		reqs, err := s.WaitChatRequests(waitCtx(t), n)
		if err != nil {
			t.Error(err)
		}
		got <- reqs
	}()
	for range n {
		wg.Go(func() {
			do(t, http.MethodPost, s.URL()+"/chat/completions", `{"messages":[]}`, nil)
			_ = s.Requests() // read while others write, for the race detector
		})
	}
	wg.Wait()
	if reqs := <-got; len(reqs) < n {
		t.Fatalf("got %d requests", len(reqs))
	}
	for i := range n {
		r, err := s.WaitDone(waitCtx(t), i)
		if err != nil {
			t.Fatal(err)
		}
		if r.Reply != DefaultReply || r.Outcome != OutcomeOK {
			t.Errorf("request %d reply %d outcome %q, want DefaultReply ok", r.Seq, r.Reply, r.Outcome)
		}
	}
}

func TestWaitRequestsEnds(t *testing.T) {
	s := startT(t, Script{})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := s.WaitRequests(ctx, 1); !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "have 0") {
		t.Errorf("err %v, want a deadline error saying how many arrived", err)
	}
	go func() {
		time.Sleep(10 * time.Millisecond)
		s.Close()
	}()
	if _, err := s.WaitRequests(waitCtx(t), 1); !errors.Is(err, ErrClosed) {
		t.Errorf("err %v, want ErrClosed", err)
	}
	if _, err := s.WaitDone(waitCtx(t), 0); !errors.Is(err, ErrClosed) {
		t.Errorf("WaitDone err %v, want ErrClosed", err)
	}
}

func TestOutcomesAndReplyIndexes(t *testing.T) {
	s := startT(t, Script{
		Replies: []Reply{
			Steps(Text("a")),
			Steps(HTTPError(APIError{Status: 500})),
			Steps(Text("a"), StreamError(APIError{})),
			Steps(Text("a"), Disconnect()),
		},
		Default: &Reply{Steps: []Step{Text("d")}},
	})
	for range 5 {
		postChat(t, s, streamReq)
	}
	postChat(t, s, `{"messages":"no"}`)
	want := []struct {
		reply   int
		outcome Outcome
	}{
		{0, OutcomeOK}, {1, OutcomeHTTPError}, {2, OutcomeStreamError}, {3, OutcomeDisconnected}, {DefaultReply, OutcomeOK}, {NoReply, OutcomeHTTPError},
	}
	for i, w := range want {
		r, err := s.WaitDone(waitCtx(t), i)
		if err != nil {
			t.Fatal(err)
		}
		if r.Reply != w.reply || r.Outcome != w.outcome {
			t.Errorf("request %d: reply %d outcome %q, want %d %q", i, r.Reply, r.Outcome, w.reply, w.outcome)
		}
	}
}

func TestOnRequest(t *testing.T) {
	var mu sync.Mutex
	var seen []Request
	s := startT(t, Script{}, OnRequest(func(r Request) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, r)
	}))
	do(t, http.MethodGet, s.URL()+"/health", "", nil)
	if _, err := s.WaitDone(waitCtx(t), 0); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 1 || seen[0].Outcome != OutcomeOK {
		t.Errorf("OnRequest saw %+v", seen)
	}
}
