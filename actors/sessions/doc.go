// Package sessions owns the sessions supervisor: the parent of every live
// session actor, which routes client requests by session id, resurrects cold
// sessions on first use, passivates idle ones, and restarts failed ones with
// exponential backoff until too many failures in a window stop the session
// and mark it failed in the store.
//
// It must not read or fold session logs (each session does that itself) and
// holds no session state beyond which actors are alive.
package sessions
