package terminal

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/troupehq/troupe/transports/jsonrpc"
)

// Policy answers permission requests the person answered in advance, or
// that nobody is there to answer (`troupe session prompt` into a pipe):
// a request whose tool Allow or Deny names is answered at once; one asked
// (by key, or left open for another client) waits at most Timeout; with
// no keys to ask and no Timeout, the rest are denied at once when
// Unattended, never left waiting for an answer that cannot come.
type Policy struct {
	// Allow and Deny name tools by ACP kind (read, edit, delete, move,
	// search, execute, think, fetch, other) or by title (bash,
	// mcp__server__tool); "all" names every tool. Deny wins.
	Allow, Deny []string
	// Timeout bounds a request's wait for an answer, after which it is
	// denied; 0 lets it wait as long as the turn.
	Timeout time.Duration
	// Unattended denies at once, with no keys and no Timeout, a request
	// neither list names; Hint says which flag would have allowed it.
	Unattended bool
	Hint       func(*Ask) string
}

// decide is the answer the lists give a request: its option and the
// entry that picked it; ok is false when neither names its tool.
func (p *Policy) decide(a *Ask) (o Option, why string, ok bool) {
	if p == nil {
		return Option{}, "", false
	}
	if e, hit := p.names(p.Deny, a); hit {
		o, ok = a.pick("reject")
		return o, "deny " + e, ok
	}
	if e, hit := p.names(p.Allow, a); hit {
		o, ok = a.pick("allow")
		return o, "allow " + e, ok
	}
	return Option{}, "", false
}

// names is the entry of list that names a's tool.
func (p *Policy) names(list []string, a *Ask) (string, bool) {
	i := slices.IndexFunc(list, func(e string) bool {
		return e == "all" || (a.Kind != "" && strings.EqualFold(e, a.Kind)) || (a.Title != "" && strings.EqualFold(e, a.Title))
	})
	if i < 0 {
		return "", false
	}
	return list[i], true
}

// pick is the request's option of that sort (allow, reject), the one-off
// preferred: an unattended answer never grants more than this call.
func (a *Ask) pick(sort string) (Option, bool) {
	for _, kind := range []string{sort + "_once", sort + "_always"} {
		if i := slices.IndexFunc(a.Options, func(o Option) bool { return o.Kind == kind }); i >= 0 {
			return a.Options[i], true
		}
	}
	return Option{}, false
}

// expiring is a request asked with a Timeout: denied at its deadline
// unless answered first.
type expiring struct {
	ask *Ask
	at  time.Time
}

// nextExpiry is the earliest deadline of the requests waiting, if any.
func (c *Client) nextExpiry() (time.Time, bool) {
	var at time.Time
	for _, e := range c.expires {
		if at.IsZero() || e.at.Before(at) {
			at = e.at
		}
	}
	return at, !at.IsZero()
}

// expire denies the requests whose deadline passed, saying so.
func (c *Client) expire() error {
	now := c.now()
	for id, e := range c.expires {
		if now.Before(e.at) {
			continue
		}
		delete(c.expires, id)
		msg := fmt.Sprintf("denied %s: no answer within %s (--timeout)", e.ask.Title, c.cfg.Policy.Timeout)
		if !c.r.withdraw(id, msg) {
			c.r.Note(msg)
		}
		c.r.answered[id] = true
		o, ok := e.ask.pick("reject")
		if err := c.answer(e.ask, o, ok); err != nil {
			return err
		}
	}
	return c.r.Err()
}

// answer sends the option picked for a; with none of the sort wanted
// (a request offering no reject), the request is cancelled, which the
// daemon takes as a denial.
func (c *Client) answer(a *Ask, o Option, ok bool) error {
	var ans permissionOutcome
	if ok {
		ans.Outcome.Outcome, ans.Outcome.OptionID = "selected", o.OptionID
	} else {
		ans.Outcome.Outcome = "cancelled"
	}
	return c.send("answer", jsonrpc.NewResult(a.ID, ans))
}
