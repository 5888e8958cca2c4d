// ACP over the daemon's WebSocket (/acp): JSON-RPC 2.0, one message per
// text frame. The token rides in the WebSocket subprotocol list
// (hydra-acp-token.<token>) beside acp.v1, the one the daemon echoes: a
// browser cannot set an Authorization header on a WebSocket, and a token
// in the URL would end up in logs and history.

export class ACP {
  constructor(tok) {
    this.tok = tok;
    this.next = 1;
    this.pending = new Map(); // id → {resolve, reject}
    this.handlers = new Map(); // notification method → fn(params)
    this.requestHandlers = new Map(); // request method → fn(params, id)
    this.onclose = null;
  }

  // open connects and initializes the conversation.
  async open(clientInfo) {
    const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/acp`;
    this.ws = new WebSocket(url, ["acp.v1", `hydra-acp-token.${this.tok}`]);
    await new Promise((resolve, reject) => {
      this.ws.onopen = resolve;
      this.ws.onerror = () => reject(new Error("the WebSocket did not open (signed out, or the daemon is gone)"));
    });
    this.ws.onmessage = (e) => this.receive(e.data);
    this.ws.onclose = (e) => {
      for (const p of this.pending.values()) p.reject(new Error("connection closed"));
      this.pending.clear();
      if (this.onclose) this.onclose(e);
    };
    this.info = await this.call("initialize", { protocolVersion: 1, clientCapabilities: {}, clientInfo });
    return this.info;
  }

  close() {
    this.onclose = null;
    if (this.ws) this.ws.close(1000, "page left the session");
  }

  on(method, fn) { this.handlers.set(method, fn); }
  onRequest(method, fn) { this.requestHandlers.set(method, fn); }

  // call sends a request and resolves with its result (rejects with its
  // error, which carries the JSON-RPC code).
  call(method, params) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return Promise.reject(new Error("not connected to the daemon"));
    const id = this.next++;
    const answer = new Promise((resolve, reject) => this.pending.set(id, { resolve, reject }));
    this.send({ jsonrpc: "2.0", id, method, params });
    return answer;
  }

  // respond answers a request the daemon sent.
  respond(id, result) { this.send({ jsonrpc: "2.0", id, result }); }

  send(msg) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(msg));
  }

  receive(data) {
    let m;
    try { m = JSON.parse(data); } catch { return; }
    if (m.method === undefined) {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (m.error) {
        const err = new Error(m.error.message || "error");
        err.code = m.error.code;
        p.reject(err);
      } else {
        p.resolve(m.result);
      }
      return;
    }
    if (m.id !== undefined && m.id !== null) {
      const fn = this.requestHandlers.get(m.method);
      if (fn) fn(m.params || {}, m.id);
      else this.send({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: `method not found: ${m.method}` } });
      return;
    }
    const fn = this.handlers.get(m.method);
    if (fn) fn(m.params || {});
  }
}
