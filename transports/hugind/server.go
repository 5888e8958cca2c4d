package hugind

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/troupehq/troupe/actors/servers"
)

// serverAsk bounds a start or stop: the load of a large model, or the
// grace of a stop, fits well within it.
const serverAsk = 15 * time.Minute

func (b *Bridge) ask(ctx context.Context, msg any) (any, error) {
	f := b.Root.RequestFuture(b.Servers, msg, serverAsk)
	done := make(chan struct{})
	var res any
	var err error
	go func() {
		res, err = f.Result()
		close(done)
	}()
	select {
	case <-done:
		return res, err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

type serverView struct {
	Name       string `json:"name"`
	Host       string `json:"host"`
	Port       int    `json:"port"`
	Status     string `json:"status"`
	ConfigName string `json:"config_name"`
	PID        int    `json:"pid,omitempty"`
	Restarts   int    `json:"restarts"`
}

func view(i servers.Info) serverView {
	return serverView{Name: i.Name, Host: i.Host, Port: i.Port, Status: i.Status, ConfigName: i.Name, PID: i.PID, Restarts: i.Restarts}
}

func serverList(ctx context.Context, b *Bridge, _ json.RawMessage, _ func(string, any)) (any, error) {
	res, err := b.ask(ctx, &servers.List{})
	if err != nil {
		return nil, fmt.Errorf("list servers: %w", err)
	}
	out := []serverView{}
	for _, i := range res.(*servers.Listed).Servers {
		out = append(out, view(i))
	}
	return map[string]any{"servers": out}, nil
}

// serverStart starts config's server and answers once /health says 200,
// with a status event "started" just before.
func serverStart(ctx context.Context, b *Bridge, raw json.RawMessage, emit func(string, any)) (any, error) {
	var p struct {
		Config string `json:"config"`
		Port   int    `json:"port"`
	}
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	if err := required("config", p.Config); err != nil {
		return nil, err
	}
	if p.Port < 0 || p.Port > 65535 {
		return nil, badParams("params.port must be 0 to 65535, not %d", p.Port)
	}
	cfg, err := b.configs().Read(p.Config)
	if err != nil {
		return nil, err
	}
	res, err := b.ask(ctx, &servers.Start{Name: p.Config, Config: cfg, Port: p.Port})
	if err != nil {
		return nil, fmt.Errorf("start server %s: %w", p.Config, err)
	}
	st := res.(*servers.Started)
	if st.Err != nil {
		return nil, st.Err
	}
	v := view(st.Info)
	emit("status", map[string]any{"status": servers.StatusStarted, "config": p.Config, "host": v.Host, "port": v.Port})
	return v, nil
}

func serverStop(ctx context.Context, b *Bridge, raw json.RawMessage, emit func(string, any)) (any, error) {
	var p struct {
		Config string `json:"config"`
	}
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	if err := required("config", p.Config); err != nil {
		return nil, err
	}
	res, err := b.ask(ctx, &servers.Stop{Name: p.Config})
	if err != nil {
		return nil, fmt.Errorf("stop server %s: %w", p.Config, err)
	}
	st := res.(*servers.Stopped)
	emit("status", map[string]any{"status": st.Status, "config": p.Config})
	return map[string]any{"status": st.Status, "config": p.Config}, nil
}
