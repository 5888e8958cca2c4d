package mcp

import (
	"cmp"
	"net/url"
	"slices"
	"strings"
)

// redacted stands for a credential in text the session keeps.
const redacted = "<redacted>"

// minSecret is the shortest value taken for a credential in free text: a
// shorter one would mangle the text more than it hides.
const minSecret = 8

// Secrets are the credentials a server's configuration carries: its env
// and header values, its URL's password and query values, longest first.
func (c ServerConfig) Secrets() []string {
	var out []string
	add := func(v string) {
		if len(v) >= minSecret {
			out = append(out, v)
		}
	}
	for _, e := range c.Env {
		add(e.Value)
	}
	for _, h := range c.Headers {
		add(h.Value)
		if tok, ok := strings.CutPrefix(h.Value, "Bearer "); ok {
			add(tok)
		}
	}
	if u, err := url.Parse(c.URL); err == nil {
		if pw, ok := u.User.Password(); ok {
			add(pw)
		}
		for _, vs := range u.Query() {
			for _, v := range vs {
				add(v)
			}
		}
	}
	slices.SortFunc(out, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	return out
}

// Redact is text with each of secrets replaced: what the session records
// of a server's error (an HTTP error names the URL, query and all) keeps
// none of its credentials.
func Redact(text string, secrets []string) string {
	for _, s := range secrets {
		text = strings.ReplaceAll(text, s, redacted)
	}
	return text
}
