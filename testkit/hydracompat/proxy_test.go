package hydracompat

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/troupehq/troupe/testkit"
)

// A daemon stand-in: a JSON route, a text route and an echoing WebSocket
// that picks the client's token subprotocol.
func fakeDaemon(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/echo", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		w.Write([]byte(`{"got":` + string(b) + `,"auth":"` + r.Header.Get("Authorization") + `"}`))
	})
	mux.HandleFunc("GET /v1/text", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("# plain\n"))
	})
	up := websocket.Upgrader{Subprotocols: []string{"acp"}}
	mux.HandleFunc("/acp", func(w http.ResponseWriter, r *http.Request) {
		c, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer c.Close()
		for {
			typ, msg, err := c.ReadMessage()
			if err != nil {
				return
			}
			c.WriteMessage(typ, []byte(`{"jsonrpc":"2.0","id":1,"result":`+string(msg)+`}`))
		}
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestProxyRecordsBothWaysWithoutTokens(t *testing.T) {
	srv := fakeDaemon(t)
	p, err := StartProxy(strings.TrimPrefix(srv.URL, "http://"))
	testkit.NoError(t, err)
	base := "http://127.0.0.1:" + strconv.Itoa(p.Port())

	req, _ := http.NewRequest("POST", base+"/v1/echo?x=1", strings.NewReader(`{"a": 1}`))
	req.Header.Set("Authorization", "Bearer sekrit-token-1")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	testkit.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	testkit.Equal(t, resp.StatusCode, http.StatusCreated)
	testkit.Equal(t, string(body), `{"got":{"a": 1},"auth":"Bearer sekrit-token-1"}`)

	resp, err = http.Get(base + "/v1/text")
	testkit.NoError(t, err)
	resp.Body.Close()

	d := websocket.Dialer{Subprotocols: []string{"acp", tokenProtocol + "sekrit-token-2"}}
	c, _, err := d.Dial("ws://127.0.0.1:"+strconv.Itoa(p.Port())+"/acp", nil)
	testkit.NoError(t, err)
	testkit.Equal(t, c.Subprotocol(), "acp")
	testkit.NoError(t, c.WriteMessage(websocket.TextMessage, []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize"}`)))
	_, msg, err := c.ReadMessage()
	testkit.NoError(t, err)
	testkit.Equal(t, string(msg), `{"jsonrpc":"2.0","id":1,"result":{"jsonrpc":"2.0","id":1,"method":"initialize"}}`)
	c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), deadline())
	c.ReadMessage() // the close coming back (the proxy's, at once)
	c.Close()
	// The proxy records the close as its pump sees it, which may be just
	// after the client heard back.
	for deadline := time.Now().Add(2 * time.Second); len(p.Rec.Records()) < 9 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	testkit.NoError(t, p.Close())

	var lines []string
	var last int64
	for _, rec := range p.Rec.Records() {
		if rec.Ms < last {
			t.Errorf("record %+v made at %dms, after one at %dms", rec, rec.Ms, last)
		}
		last, rec.Ms = rec.Ms, 0
		b, err := json.Marshal(rec)
		testkit.NoError(t, err)
		lines = append(lines, string(b))
	}
	got := strings.Join(lines, "\n")
	if strings.Contains(got, "sekrit") {
		t.Errorf("a token value was recorded:\n%s", got)
	}
	want := []string{
		`{"conn":1,"dir":"send","kind":"http","method":"POST","path":"/v1/echo?x=1","contentType":"application/json","body":{"a":1}}`,
		`{"conn":1,"dir":"recv","kind":"http","contentType":"application/json","status":201,"body":{"got":{"a":1},"auth":"Bearer $TOKEN"}}`,
		`{"conn":2,"dir":"send","kind":"http","method":"GET","path":"/v1/text"}`,
		`{"conn":2,"dir":"recv","kind":"http","contentType":"text/plain; charset=utf-8","status":200,"text":"# plain\n"}`,
		`{"conn":3,"dir":"send","kind":"ws-open","path":"/acp","protocols":["acp","hydra-acp-token.$TOKEN"]}`,
		`{"conn":3,"dir":"recv","kind":"ws-open","protocols":["acp"],"status":101}`,
		`{"conn":3,"dir":"send","kind":"ws","body":{"jsonrpc":"2.0","id":1,"method":"initialize"}}`,
		`{"conn":3,"dir":"recv","kind":"ws","body":{"jsonrpc":"2.0","id":1,"result":{"jsonrpc":"2.0","id":1,"method":"initialize"}}}`,
		`{"conn":3,"dir":"send","kind":"ws-close","code":1000}`,
	}
	// The daemon's side of the close may or may not be seen before the
	// proxy is closed.
	if len(lines) < len(want) || strings.Join(lines[:len(want)], "\n") != strings.Join(want, "\n") {
		t.Errorf("records:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
}

func deadline() time.Time { return time.Now().Add(time.Second) }
