package servers

import (
	"context"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// poller polls a run's /health from a goroutine until it answers 200 or is
// stopped; the server actor owns it and stops it when the run ends.
type poller struct {
	cancel context.CancelFunc
}

func startPoll(ctx actor.Context, run int, host string, port int, every time.Duration) *poller {
	c, cancel := context.WithCancel(context.Background())
	p := &poller{cancel: cancel}
	root, self := ctx.ActorSystem().Root, ctx.Self()
	url := "http://" + net.JoinHostPort(host, strconv.Itoa(port)) + "/health"
	go func() {
		client := &http.Client{Timeout: 2 * time.Second}
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			if ok200(c, client, url) {
				root.Send(self, &healthy200{run: run})
				return
			}
			select {
			case <-c.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return p
}

// ok200 is one poll: 503 (loading) and a refused connection are "not yet".
func ok200(c context.Context, client *http.Client, url string) bool {
	req, err := http.NewRequestWithContext(c, http.MethodGet, url, nil)
	if err != nil {
		return false
	}
	resp, err := client.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// stop ends the poll without waiting (the actor must not block): the
// goroutine returns as soon as its request sees the cancel, and a 200 it
// may still send is for a run that is over. nil-safe.
func (p *poller) stop() {
	if p != nil {
		p.cancel()
	}
}
