package acp_test

import (
	"net/http/httptest"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/runtime/logging"
	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/acpclient"
	"github.com/troupehq/troupe/testkit/llmserver"
	"github.com/troupehq/troupe/transports/acp"
)

// wsRig is a runtime whose runs play a script, served by WebSocketHandler
// on a loopback httptest server.
type wsRig struct {
	p   *llmserver.Provider
	rt  *actors.Runtime
	srv *httptest.Server
	cwd string
}

func newWSRig(t testing.TB, script llmserver.Script, mode string, tune func(*acp.WebSocketConfig)) *wsRig {
	t.Helper()
	return newWSRigLogged(t, script, mode, tune, nil, nil)
}

// newWSRigLogged also writes the runtime's debug log to logs.
func newWSRigLogged(t testing.TB, script llmserver.Script, mode string, tune func(*acp.WebSocketConfig), logs *testkit.Buffer, tuneBoot func(*actors.Options)) *wsRig {
	t.Helper()
	p, err := llmserver.NewProvider(script, llmserver.WithTest(t))
	testkit.NoError(t, err)
	eng := testkit.Engine(p, event.ToolStyleNative)
	eng.DefaultMode = mode
	opts := actors.Options{Engine: eng}
	if logs != nil {
		log, err := logging.New(logging.Options{Level: "debug", Format: "json", Writer: logs})
		testkit.NoError(t, err)
		opts.Logger = log
	}
	if tuneBoot != nil {
		tuneBoot(&opts)
	}
	rt := testkit.Boot(t, opts)
	cfg := acp.WebSocketConfig{
		Config: acp.Config{Sessions: rt.Sessions, Version: "test"},
		Start: func(props *actor.Props, name string) error {
			_, err := rt.StartTransport(props, name)
			return err
		},
	}
	if tune != nil {
		tune(&cfg)
	}
	srv := httptest.NewServer(acp.WebSocketHandler(cfg))
	t.Cleanup(srv.Close)
	return &wsRig{p: p, rt: rt, srv: srv, cwd: t.TempDir()}
}

// dial connects with the token as a subprotocol entry and initializes;
// initialize, NewSession and Attach wait up to 10s.
func (r *wsRig) dial(t testing.TB, name string) *acpclient.Client {
	t.Helper()
	return acpclient.Dial(t, acpclient.Options{
		URL:          acpclient.URL(r.srv.URL, "", ""),
		Subprotocols: []string{acp.Subprotocol, acpclient.TokenEntry("secret")},
		Name:         name,
		Wait:         10 * time.Second,
	})
}
