package rest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// redactedValue stands in an export for a value it does not carry.
const redactedValue = "<redacted>"

// redaction is what an export replaces: the paths it replaced values
// at, and the values, so that a copy of one elsewhere in the log (an MCP
// server's error naming its URL, a tool's output) is replaced too.
type redaction struct {
	paths   []string
	secrets map[string]bool
}

// minScrubbed is the shortest value scrubbed from the rest of the log: a
// shorter one is no secret worth the text it would mangle (it is still
// replaced where it was configured).
const minScrubbed = 8

func (r *redaction) value(v string) {
	if len(v) < minScrubbed {
		return
	}
	if r.secrets == nil {
		r.secrets = map[string]bool{}
	}
	r.secrets[v] = true
}

// redactServers is a session.created's mcp_servers as an export carries
// them: every env and header value (API keys, the daemon's per-session
// capability tokens in Authorization headers) and a URL's password and
// query values replaced by redactedValue. It notes in r what it replaced,
// as paths under prefix. An entry it cannot read is left out whole, since
// it cannot tell its secrets apart.
func (r *redaction) servers(servers json.RawMessage, prefix string) (json.RawMessage, error) {
	if len(servers) == 0 || string(servers) == "null" {
		return servers, nil
	}
	var entries []map[string]json.RawMessage
	if err := json.Unmarshal(servers, &entries); err != nil {
		r.paths = append(r.paths, prefix)
		return json.RawMessage(`[]`), nil
	}
	for i, e := range entries {
		at := fmt.Sprintf("%s[%d]", prefix, i)
		for _, key := range []string{"env", "headers"} {
			raw, ok := e[key]
			if !ok {
				continue
			}
			red, names := r.values(raw)
			e[key] = red
			for _, n := range names {
				r.paths = append(r.paths, at+"."+key+"."+n)
			}
		}
		if raw, ok := e["url"]; ok {
			if red, changed := r.url(raw); changed {
				e["url"] = red
				r.paths = append(r.paths, at+".url")
			}
		}
	}
	return json.Marshal(entries)
}

// redactValues replaces the values of an env or headers list: ACP's
// [{name, value}], or a {name: value} object. Anything else is replaced
// whole.
func (r *redaction) values(raw json.RawMessage) (json.RawMessage, []string) {
	var list []map[string]json.RawMessage
	if json.Unmarshal(raw, &list) == nil {
		var names []string
		for i, item := range list {
			v, ok := item["value"]
			if !ok {
				continue
			}
			var s string
			if json.Unmarshal(v, &s) == nil {
				r.value(s)
			}
			var name string
			if json.Unmarshal(item["name"], &name) != nil || name == "" {
				name = fmt.Sprintf("#%d", i)
			}
			item["value"] = json.RawMessage(`"` + redactedValue + `"`)
			names = append(names, name)
		}
		out, _ := json.Marshal(list)
		return out, names
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) == nil {
		names := make([]string, 0, len(obj))
		for k, v := range obj {
			var s string
			if json.Unmarshal(v, &s) == nil {
				r.value(s)
			}
			obj[k] = json.RawMessage(`"` + redactedValue + `"`)
			names = append(names, k)
		}
		slices.Sort(names)
		out, _ := json.Marshal(obj)
		return out, names
	}
	if string(raw) == "null" {
		return raw, nil
	}
	return json.RawMessage(`"` + redactedValue + `"`), []string{"*"}
}

// redactURL replaces a URL's password and query values; true when it
// changed anything.
func (r *redaction) url(raw json.RawMessage) (json.RawMessage, bool) {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return json.RawMessage(`"` + redactedValue + `"`), true
	}
	u, err := url.Parse(s)
	if err != nil {
		return json.RawMessage(`"` + redactedValue + `"`), true
	}
	changed := false
	if u.User != nil {
		if pw, has := u.User.Password(); has {
			r.value(pw)
			u.User = url.UserPassword(u.User.Username(), redactedValue)
			changed = true
		}
	}
	if u.RawQuery != "" {
		q := u.Query()
		for k, vs := range q {
			for _, v := range vs {
				r.value(v)
			}
			q[k] = []string{redactedValue}
		}
		u.RawQuery = q.Encode()
		changed = true
	}
	if u.Fragment != "" {
		r.value(u.Fragment)
		u.Fragment, u.RawFragment = "", ""
		changed = true
	}
	if !changed {
		return raw, false
	}
	out, _ := json.Marshal(u.String())
	return out, true
}

// scrub is raw (an event's payload, a history entry's params) with every
// value redacted from the servers replaced wherever a string holds it;
// what path names it is noted when it changed anything.
func (r *redaction) scrub(raw json.RawMessage, path string) json.RawMessage {
	if len(r.secrets) == 0 || !r.mentions(raw) {
		return raw
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // numbers as they were, not float64
	if dec.Decode(&v) != nil {
		return raw
	}
	v = r.scrubValue(v)
	out, err := json.Marshal(v)
	if err != nil {
		return raw
	}
	r.paths = append(r.paths, path)
	return out
}

// mentions reports whether raw may hold a redacted value, as it is or
// JSON-escaped.
func (r *redaction) mentions(raw json.RawMessage) bool {
	for v := range r.secrets {
		if bytes.Contains(raw, []byte(v)) {
			return true
		}
		if esc, _ := json.Marshal(v); bytes.Contains(raw, esc[1:len(esc)-1]) {
			return true
		}
	}
	return false
}

func (r *redaction) scrubValue(v any) any {
	switch x := v.(type) {
	case string:
		for s := range r.secrets {
			x = strings.ReplaceAll(x, s, redactedValue)
		}
		return x
	case []any:
		for i := range x {
			x[i] = r.scrubValue(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = r.scrubValue(x[k])
		}
	}
	return v
}
