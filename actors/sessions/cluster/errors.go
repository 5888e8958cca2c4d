package cluster

import (
	"errors"

	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/actors/sessions/cluster/clusterpb"
)

// An error crosses members as its facade kind (sessions.KindOf) and text;
// on the other side it is a *remoteError that errors.Is matches against
// the kind's sentinel, so a transport maps it as it would a local one.

func errorToPB(err error) *clusterpb.Error {
	if err == nil {
		return nil
	}
	return &clusterpb.Error{Kind: sessions.KindOf(err).String(), Message: err.Error()}
}

func errorFromPB(e *clusterpb.Error) error {
	if e == nil {
		return nil
	}
	return &remoteError{kind: kindNamed(e.Kind), msg: e.Message}
}

// kindNamed is the kind whose name is name; an unknown name is internal.
func kindNamed(name string) sessions.Kind {
	for _, k := range sessions.Kinds() {
		if k.String() == name {
			return k
		}
	}
	return sessions.KindInternal
}

// sentinels are the errors each kind is known by (errors.Is).
var sentinels = map[sessions.Kind][]error{
	sessions.KindNotFound:   {sessions.ErrNotFound},
	sessions.KindInvalid:    {sessions.ErrAttentionLimit},
	sessions.KindExists:     {sessions.ErrExists},
	sessions.KindHasForks:   {sessions.ErrHasForks},
	sessions.KindBusy:       {sessions.ErrBusy},
	sessions.KindNoRun:      {sessions.ErrNoRun},
	sessions.KindNoEngine:   {sessions.ErrNoEngine},
	sessions.KindFailed:     {sessions.ErrFailed},
	sessions.KindDiskFull:   {sessions.ErrDiskFull, sessions.ErrStoreWrite},
	sessions.KindStoreWrite: {sessions.ErrStoreWrite},
}

// remoteError is a refusal another member answered with.
type remoteError struct {
	kind sessions.Kind
	msg  string
}

func (e *remoteError) Error() string { return e.msg }

func (e *remoteError) Is(target error) bool {
	for _, s := range sentinels[e.kind] {
		if errors.Is(s, target) {
			return true
		}
	}
	return false
}
