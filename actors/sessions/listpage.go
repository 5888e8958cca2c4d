package sessions

import (
	"context"
	"encoding/base64"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/troupehq/troupe/persistence"
)

type (
	// ListQuery picks a page of the session list (see ListPage).
	ListQuery = persistence.ListQuery
	// ListCursor is a place in the session list's order.
	ListCursor = persistence.ListCursor
)

// CursorOf is the place of m in the list's order.
func CursorOf(m Meta) ListCursor { return persistence.CursorOf(m) }

// ListOrder is the list's order (newest first, then by id), for
// slices.SortFunc.
func ListOrder(a, b Meta) int { return persistence.ListOrder(a, b) }

// ErrBadCursor refuses a list cursor this daemon did not give.
var ErrBadCursor = errors.New("invalid cursor")

// ListPage lists the page of sessions q picks, most recently updated
// first, then by id, and the cursor of the next page ("" after the last).
// Cold sessions are read from their rows alone, in index order: a page
// costs the same whatever the store holds, and no session is started.
func (c *Client) ListPage(ctx context.Context, q ListQuery) ([]Meta, string, error) {
	if q.Limit <= 0 {
		list, err := c.store.SessionsPage(ctx, q)
		return list, "", err
	}
	// One more than asked says whether a next page exists.
	q.Limit++
	list, err := c.store.SessionsPage(ctx, q)
	if err != nil || len(list) < q.Limit {
		return list, "", err
	}
	list = list[:q.Limit-1]
	return list, EncodeCursor(persistence.CursorOf(list[len(list)-1])), nil
}

// ListRunning is ListPage of the sessions some live process hosts
// (Running) alone: each read by its id, never through the list of every
// session, so that asking which are warm costs the same whatever the
// store holds.
func (c *Client) ListRunning(ctx context.Context, q ListQuery) ([]Meta, string, error) {
	running, err := c.Running(ctx)
	if err != nil {
		return nil, "", err
	}
	var out []Meta
	for id := range running {
		m, err := c.store.Session(ctx, id)
		if errors.Is(err, persistence.ErrSessionNotFound) {
			continue // a lease taken for a session not yet written
		}
		if err != nil {
			return nil, "", err
		}
		if (q.Cwd != "" && m.Cwd != q.Cwd) || (q.InteractiveOnly && m.Interactive != nil && !*m.Interactive) ||
			(q.After != nil && q.After.Covers(m)) {
			continue
		}
		out = append(out, m)
	}
	slices.SortFunc(out, persistence.ListOrder)
	if q.Limit > 0 && len(out) > q.Limit {
		out = out[:q.Limit]
		return out, EncodeCursor(persistence.CursorOf(out[len(out)-1])), nil
	}
	return out, "", nil
}

// ListPage is Client.ListPage, read off the mailbox.
func (a Async) ListPage(q ListQuery, then func([]Meta, string, error)) {
	type page struct {
		list []Meta
		next string
	}
	offMailbox(a, requestTimeout, func(ctx context.Context) (page, error) {
		list, next, err := a.c.ListPage(ctx, q)
		return page{list, next}, err
	}, func(p page, err error) { then(p.list, p.next, err) })
}

// EncodeCursor is c as the protocols pass it: opaque to clients.
func EncodeCursor(c ListCursor) string {
	raw := strconv.FormatInt(c.UpdatedAt.UnixNano(), 10) + ":" + c.ID
	return base64.RawURLEncoding.EncodeToString([]byte(raw))
}

// DecodeCursor reads a cursor EncodeCursor made; ErrBadCursor for any
// other string.
func DecodeCursor(s string) (ListCursor, error) {
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return ListCursor{}, ErrBadCursor
	}
	at, id, ok := strings.Cut(string(raw), ":")
	if !ok || id == "" {
		return ListCursor{}, ErrBadCursor
	}
	nanos, err := strconv.ParseInt(at, 10, 64)
	if err != nil {
		return ListCursor{}, ErrBadCursor
	}
	return ListCursor{UpdatedAt: time.Unix(0, nanos).UTC(), ID: id}, nil
}
