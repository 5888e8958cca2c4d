package hydracompat

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// tokenProtocol is the subprotocol prefix Hydra's clients carry their
// token in.
const tokenProtocol = "hydra-acp-token."

// Proxy forwards a loopback port to a daemon and records the traffic.
type Proxy struct {
	Rec    *Recorder
	target string // host:port of the daemon
	ln     net.Listener
	srv    *http.Server
	client *http.Client
	wg     sync.WaitGroup // the WebSocket pumps
	done   chan struct{}  // closed by Close: hijacked connections end too
	once   sync.Once
}

// StartProxy listens on a free loopback port and forwards to target
// (host:port).
func StartProxy(target string) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("proxy listen: %w", err)
	}
	p := &Proxy{
		Rec:    &Recorder{start: time.Now()},
		target: target,
		ln:     ln,
		done:   make(chan struct{}),
		// No compression, so the bodies recorded are the bodies sent; no
		// redirects followed, so the client sees the daemon's own.
		client: &http.Client{
			Transport:     &http.Transport{DisableCompression: true, Proxy: nil},
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
	}
	p.srv = &http.Server{Handler: p, ReadHeaderTimeout: 10 * time.Second}
	go p.srv.Serve(ln) //nolint:errcheck // ends with Close
	return p, nil
}

// Port is the port the proxy listens on.
func (p *Proxy) Port() int { return p.ln.Addr().(*net.TCPAddr).Port }

// Close stops listening, ends every exchange and waits for the WebSocket
// pumps; a second Close does nothing.
func (p *Proxy) Close() error {
	var err error
	p.once.Do(func() {
		err = p.srv.Close()
		close(p.done)
		p.wg.Wait()
	})
	return err
}

func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.learnSecrets(r)
	if websocket.IsWebSocketUpgrade(r) {
		p.serveWS(w, r)
		return
	}
	p.serveHTTP(w, r)
}

// learnSecrets registers the request's token values for redaction.
func (p *Proxy) learnSecrets(r *http.Request) {
	if tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		p.Rec.Secret(strings.TrimSpace(tok))
	}
	if tok := r.URL.Query().Get("token"); tok != "" {
		p.Rec.Secret(tok)
	}
	for _, proto := range websocket.Subprotocols(r) {
		if tok, ok := strings.CutPrefix(proto, tokenProtocol); ok {
			p.Rec.Secret(tok)
		}
	}
}

// hopHeaders are not forwarded either way.
var hopHeaders = []string{"Connection", "Keep-Alive", "Proxy-Connection", "Transfer-Encoding", "Upgrade", "Te", "Trailer"}

func (p *Proxy) serveHTTP(w http.ResponseWriter, r *http.Request) {
	conn := p.Rec.conn()
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, "proxy: read request: "+err.Error(), http.StatusBadGateway)
		return
	}
	req := Record{Conn: conn, Dir: Send, Kind: KindHTTP, Method: r.Method, Path: r.URL.RequestURI(), ContentType: r.Header.Get("Content-Type")}
	req.SetBody(body)
	p.Rec.Add(req)

	out, err := http.NewRequestWithContext(r.Context(), r.Method, "http://"+p.target+r.URL.RequestURI(), bytes.NewReader(body))
	if err != nil {
		http.Error(w, "proxy: "+err.Error(), http.StatusBadGateway)
		return
	}
	out.Header = r.Header.Clone()
	for _, h := range hopHeaders {
		out.Header.Del(h)
	}
	resp, err := p.client.Do(out)
	if err != nil {
		p.Rec.Add(Record{Conn: conn, Dir: Recv, Kind: KindHTTP, Status: http.StatusBadGateway, Text: ptr("proxy: " + err.Error())})
		http.Error(w, "proxy: "+err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, vs := range resp.Header {
		w.Header()[k] = vs
	}
	for _, h := range hopHeaders {
		w.Header().Del(h)
	}
	rec := Record{Conn: conn, Dir: Recv, Kind: KindHTTP, Status: resp.StatusCode, ContentType: resp.Header.Get("Content-Type")}
	if !streamed(resp) {
		// Recorded before the client has it, so that what the client does
		// next is recorded after it.
		b, _ := io.ReadAll(resp.Body)
		rec.SetBody(b)
		p.Rec.Add(rec)
		w.WriteHeader(resp.StatusCode)
		w.Write(b) //nolint:errcheck // the client went away
		return
	}
	w.WriteHeader(resp.StatusCode)
	// Streamed answers (history ?follow=1) reach the client as they come;
	// the record is written when the answer ends.
	var got bytes.Buffer
	flusher, _ := w.(http.Flusher)
	buf := make([]byte, 32<<10)
	for {
		n, rerr := resp.Body.Read(buf)
		if n > 0 {
			got.Write(buf[:n])
			if _, werr := w.Write(buf[:n]); werr != nil {
				break
			}
			if flusher != nil {
				flusher.Flush()
			}
		}
		if rerr != nil {
			break
		}
	}
	rec.SetBody(got.Bytes())
	p.Rec.Add(rec)
}

// streamed says whether an answer is a stream the client reads as it
// comes (NDJSON or server-sent events of unknown length).
func streamed(resp *http.Response) bool {
	ct := resp.Header.Get("Content-Type")
	return resp.ContentLength < 0 && (strings.Contains(ct, "ndjson") || strings.Contains(ct, "event-stream"))
}

func (p *Proxy) serveWS(w http.ResponseWriter, r *http.Request) {
	conn := p.Rec.conn()
	protos := websocket.Subprotocols(r)
	p.Rec.Add(Record{Conn: conn, Dir: Send, Kind: KindWSOpen, Path: r.URL.RequestURI(), Protocols: protos})
	u := url.URL{Scheme: "ws", Host: p.target, Path: r.URL.Path, RawQuery: r.URL.RawQuery}
	dialer := websocket.Dialer{Subprotocols: protos, HandshakeTimeout: 10 * time.Second}
	up, resp, err := dialer.DialContext(r.Context(), u.String(), nil)
	if err != nil {
		refuse(p.Rec, conn, w, resp, err)
		return
	}
	upgrader := websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}
	var header http.Header
	if sel := up.Subprotocol(); sel != "" {
		header = http.Header{"Sec-Websocket-Protocol": {sel}}
	}
	down, err := upgrader.Upgrade(w, r, header)
	if err != nil {
		up.Close()
		return
	}
	p.Rec.Add(Record{Conn: conn, Dir: Recv, Kind: KindWSOpen, Status: http.StatusSwitchingProtocols, Protocols: nonEmpty(up.Subprotocol())})
	p.wg.Add(4) // two pumps, their waiter, the watcher
	ended := make(chan struct{})
	var pumps sync.WaitGroup
	pumps.Add(2)
	go func() { defer pumps.Done(); p.pump(conn, Send, down, up) }()
	go func() { defer pumps.Done(); p.pump(conn, Recv, up, down) }()
	go func() { defer p.wg.Done(); pumps.Wait(); close(ended) }()
	go func() {
		defer p.wg.Done()
		select {
		case <-p.done:
			up.Close()
			down.Close()
		case <-ended:
		}
	}()
}

// refuse passes a refused upgrade on to the client.
func refuse(rec *Recorder, conn int, w http.ResponseWriter, resp *http.Response, err error) {
	if resp == nil {
		rec.Add(Record{Conn: conn, Dir: Recv, Kind: KindWSOpen, Status: http.StatusBadGateway, Text: ptr("proxy: " + err.Error())})
		http.Error(w, "proxy: "+err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	r := Record{Conn: conn, Dir: Recv, Kind: KindWSOpen, Status: resp.StatusCode}
	r.SetBody(body)
	rec.Add(r)
	w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
	w.WriteHeader(resp.StatusCode)
	w.Write(body) //nolint:errcheck // the client went away
}

// pump copies messages from one side to the other, recording each before
// it is passed on (so that a message sent in answer to another is
// recorded after it), and passes a close on.
func (p *Proxy) pump(conn int, dir string, from, to *websocket.Conn) {
	defer p.wg.Done()
	for {
		typ, msg, err := from.ReadMessage()
		if err != nil {
			code := websocket.CloseAbnormalClosure
			var ce *websocket.CloseError
			if errors.As(err, &ce) {
				code = ce.Code
			}
			// A close the proxy's own Close caused is no part of the
			// exchange.
			select {
			case <-p.done:
				to.Close()
				return
			default:
			}
			p.Rec.Add(Record{Conn: conn, Dir: dir, Kind: KindWSClose, Code: code})
			if code == websocket.CloseAbnormalClosure || code == websocket.CloseNoStatusReceived {
				to.Close()
				return
			}
			to.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, ""), time.Now().Add(time.Second)) //nolint:errcheck // best effort
			return
		}
		rec := Record{Conn: conn, Dir: dir, Kind: KindWS, Binary: typ == websocket.BinaryMessage}
		rec.SetBody(msg)
		p.Rec.Add(rec)
		if err := to.WriteMessage(typ, msg); err != nil {
			from.Close()
			return
		}
	}
}

func ptr[T any](v T) *T { return &v }

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}
