package mcp_test

import (
	"context"
	"errors"
	"net"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/troupehq/troupe/actors/sessions/mcp"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/runtime/tools"
	"github.com/troupehq/troupe/testkit"
)

// memServer is an in-process MCP server the actor reaches in memory,
// through the SDK's InMemoryTransport; a droppable one uses what that
// transport is made of (IOTransport over a net.Pipe) and keeps the pipe, so
// a test can drop the connection as a crashed server would:
// ServerSession.Close waits for the requests in flight, which may hang.
type memServer struct {
	srv    *sdk.Server
	listed chan struct{} // a tools/list arrived
	// seen is closed by a test once its progress callback saw the steps:
	// notifications are handled after the result when they race it, and a
	// finished call's are dropped.
	seen chan struct{}

	mu        sync.Mutex
	droppable bool
	pipes     []net.Conn
	dials     int
	refuse    bool
}

func newMemServer(t testing.TB) *memServer {
	m := &memServer{listed: make(chan struct{}, 16), seen: make(chan struct{})}
	m.srv = sdk.NewServer(&sdk.Implementation{Name: "mem", Version: "1"}, nil)
	m.srv.AddReceivingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			res, err := next(ctx, method, req)
			if method == "tools/list" {
				select {
				case m.listed <- struct{}{}:
				default:
				}
			}
			return res, err
		}
	})
	sdk.AddTool(m.srv, &sdk.Tool{Name: "echo"}, func(_ context.Context, _ *sdk.CallToolRequest, in struct {
		Text string `json:"text"`
	}) (*sdk.CallToolResult, any, error) {
		return memText("echo:" + in.Text), nil, nil
	})
	sdk.AddTool(m.srv, &sdk.Tool{Name: "steps"}, func(ctx context.Context, req *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
		for i := 1; i <= 3; i++ {
			if err := req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{
				ProgressToken: req.Params.GetProgressToken(), Progress: float64(i), Total: 3, Message: "step",
			}); err != nil {
				return nil, nil, err
			}
		}
		select {
		case <-m.seen:
		case <-time.After(5 * time.Second):
		}
		return memText("stepped"), nil, nil
	})
	// grow adds a tool, which makes the server send list_changed, and
	// answers once the client has listed the tools again: the order a
	// well-behaved server gives, made certain for the test.
	sdk.AddTool(m.srv, &sdk.Tool{Name: "grow"}, func(ctx context.Context, _ *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
		for len(m.listed) > 0 {
			<-m.listed
		}
		sdk.AddTool(m.srv, &sdk.Tool{Name: "fresh"}, func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			return memText("new"), nil, nil
		})
		select {
		case <-m.listed:
		case <-time.After(5 * time.Second):
		case <-ctx.Done():
		}
		return memText("grown"), nil, nil
	})
	return m
}

func memText(s string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
}

// dial connects a new server session, or fails while refuse is set.
func (m *memServer) dial() (sdk.Transport, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.dials++
	if m.refuse {
		return nil, errors.New("refused")
	}
	if !m.droppable {
		st, ct := sdk.NewInMemoryTransports()
		if _, err := m.srv.Connect(context.Background(), st, nil); err != nil {
			return nil, err
		}
		return ct, nil
	}
	sp, cp := net.Pipe()
	if _, err := m.srv.Connect(context.Background(), &sdk.IOTransport{Reader: sp, Writer: sp}, nil); err != nil {
		return nil, err
	}
	m.pipes = append(m.pipes, sp)
	return &sdk.IOTransport{Reader: cp, Writer: cp}, nil
}

// drop ends the current server session, as a crashed server would.
func (m *memServer) drop() {
	m.mu.Lock()
	p := m.pipes[len(m.pipes)-1]
	m.mu.Unlock()
	_ = p.Close()
}

func (m *memServer) setRefuse(v bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.refuse = v
}

func (m *memServer) dialCount() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.dials
}

// statuses records the *mcp.Status messages an actor sends.
type statuses struct {
	mu  sync.Mutex
	got []*mcp.Status
	pid *actor.PID
}

func newStatuses(t testing.TB, sys *actor.ActorSystem) *statuses {
	s := &statuses{}
	s.pid = sys.Root.Spawn(actor.PropsFromFunc(func(ctx actor.Context) {
		if st, ok := ctx.Message().(*mcp.Status); ok {
			s.mu.Lock()
			s.got = append(s.got, st)
			s.mu.Unlock()
		}
	}))
	t.Cleanup(func() { sys.Root.Stop(s.pid) })
	return s
}

func (s *statuses) list() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, st := range s.got {
		out = append(out, st.Status)
	}
	return out
}

// memActor spawns the actor for m with a toolset and a status recorder.
func memActor(t testing.TB, m *memServer) (*actor.ActorSystem, *actor.PID, *mcp.Toolset, *statuses) {
	sys := newSystem(t)
	cfg := mcp.ServerConfig{Name: "mem", Type: mcp.TransportHTTP, URL: "http://in.memory/"}
	set := mcp.NewToolset([]mcp.ServerConfig{cfg})
	st := newStatuses(t, sys)
	pid := spawn(t, sys, mcp.Props(cfg, t.TempDir(), mcp.WithToolset(set), mcp.WithNotify(st.pid), mcp.WithDial(m.dial)))
	return sys, pid, set, st
}

func toolNamed(ts []tools.Tool, name string) tools.Tool {
	for _, tl := range ts {
		if tl.Name() == name {
			return tl
		}
	}
	return nil
}

// A server's notifications/progress for a call reach the call's progress
// callback as cumulative text, in order.
func TestProgressReachesTheCall(t *testing.T) {
	m := newMemServer(t)
	_, _, set, _ := memActor(t, m)
	testkit.Eventually(t, 5*time.Second, "tools offered", func() bool { return len(set.Tools()) > 0 })
	var mu sync.Mutex
	var got []string
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := toolNamed(set.Tools(), "mem__steps").Run(ctx, tools.Call{Args: []byte(`{}`)}, func(s string) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, s)
		if len(got) == 3 {
			close(m.seen)
		}
	})
	testkit.NoError(t, err)
	testkit.Equal(t, res.Output, "stepped")
	want := []string{"[1/3] step", "[1/3] step\n[2/3] step", "[1/3] step\n[2/3] step\n[3/3] step"}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(got, want) {
		t.Fatalf("progress %q, want %q", got, want)
	}
}

// After notifications/tools/list_changed the actor lists the tools again;
// the call that caused the change answers only once the toolset (what the
// next request offers) and GetTools hold the new tool.
func TestToolListChangedUpdatesTheToolset(t *testing.T) {
	sys, pid, set, _ := memActor(t, newMemServer(t))
	before := mustTools(t, sys, pid)
	if _, ok := before["mem__fresh"]; ok {
		t.Fatal("fresh offered before it exists")
	}
	r := run(t, before["mem__grow"], `{}`)
	testkit.Equal(t, r.Output, "grown")
	fresh := toolNamed(set.Tools(), "mem__fresh")
	if fresh == nil {
		t.Fatalf("toolset after grow: %v", names(mustTools(t, sys, pid)))
	}
	if _, ok := mustTools(t, sys, pid)["mem__fresh"]; !ok {
		t.Fatal("GetTools after grow lacks fresh")
	}
	testkit.Equal(t, run(t, fresh, `{}`).Output, "new")
}

// A dropped connection is reported once per drop and made again after the
// backoff; a call made meanwhile waits for the new connection instead of
// failing.
func TestDroppedConnectionReconnects(t *testing.T) {
	mcp.SetBackoff(t, 20*time.Millisecond, time.Second, time.Hour)
	m := newMemServer(t)
	m.droppable = true
	sys, pid, _, st := memActor(t, m)
	echo := mustTools(t, sys, pid)["mem__echo"]
	for i := 1; i <= 3; i++ {
		m.drop()
		// Called right after the drop: it may catch the old connection
		// closing (an error result), but never after the reconnect.
		testkit.Eventually(t, 10*time.Second, "echo answers again", func() bool {
			return run(t, echo, `{"text":"x"}`).Output == "echo:x"
		})
		testkit.Eventually(t, 5*time.Second, "lost and connected reported", func() bool {
			return len(st.list()) == 2*i
		})
	}
	want := []string{event.MCPStatusLost, event.MCPStatusConnected, event.MCPStatusLost, event.MCPStatusConnected, event.MCPStatusLost, event.MCPStatusConnected}
	if got := st.list(); !slices.Equal(got, want) {
		t.Fatalf("statuses %v, want %v", got, want)
	}
	testkit.Equal(t, m.dialCount(), 4)
}

// A server that never comes up is reported once, however often it is
// retried; once it comes up its tools are offered and that is reported.
func TestNeverUpReportedOnce(t *testing.T) {
	mcp.SetBackoff(t, 5*time.Millisecond, 20*time.Millisecond, time.Hour)
	m := newMemServer(t)
	m.setRefuse(true)
	sys, pid, set, st := memActor(t, m)
	if reply := getTools(t, sys, pid); reply.Err == nil || len(reply.Tools) != 0 {
		t.Fatalf("GetTools on a refusing server: %+v", reply)
	}
	testkit.Eventually(t, 5*time.Second, "several attempts", func() bool { return m.dialCount() >= 5 })
	if got := st.list(); !slices.Equal(got, []string{event.MCPStatusUnavailable}) {
		t.Fatalf("statuses %v, want one unavailable", got)
	}
	if len(set.Tools()) != 0 {
		t.Fatalf("tools of a server that never came up: %d", len(set.Tools()))
	}
	m.setRefuse(false)
	testkit.Eventually(t, 5*time.Second, "tools offered once it is up", func() bool { return len(set.Tools()) > 0 })
	testkit.Eventually(t, 5*time.Second, "connected reported", func() bool {
		return slices.Equal(st.list(), []string{event.MCPStatusUnavailable, event.MCPStatusConnected})
	})
}

func TestBackoffGrowsToItsCap(t *testing.T) {
	mcp.SetBackoff(t, 250*time.Millisecond, 2*time.Second, time.Hour)
	var got []time.Duration
	for n := range 6 {
		got = append(got, mcp.Backoff(n))
	}
	want := []time.Duration{250 * time.Millisecond, 500 * time.Millisecond, time.Second, 2 * time.Second, 2 * time.Second, 2 * time.Second}
	if !slices.Equal(got, want) {
		t.Fatalf("delays %v, want %v", got, want)
	}
}
