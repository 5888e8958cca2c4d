package persistence

import (
	"errors"

	"github.com/mattn/go-sqlite3"
)

// IsSeqConflict reports whether a failed commit failed on a seq the store
// already holds (the events' primary key): the session's idea of its log
// ends before the store's, which only a log that read back short, that is
// a damaged store, or another writer, explains.
func IsSeqConflict(err error) bool {
	if pe := pgError(err); pe != nil {
		return pe.Code == "23505" && pe.ConstraintName == "events_pkey"
	}
	var se sqlite3.Error
	return errors.As(err, &se) && se.ExtendedCode == sqlite3.ErrConstraintPrimaryKey
}
