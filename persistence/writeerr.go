package persistence

import (
	"errors"
	"syscall"

	"github.com/mattn/go-sqlite3"
)

// The two kinds of failed write a client is told about by name (the
// facade re-exports them; each transport maps them once to its protocol):
// the store's file could not take the write, which is no fault of the
// request and may pass once an operator acts.
var (
	// ErrDiskFull: the disk (or quota, or file size limit) holding the
	// store is full. Every ErrDiskFull is also an ErrStoreWrite.
	ErrDiskFull = errors.New("the store's disk is full")
	// ErrStoreWrite: the store's file refused the write (an I/O error, a
	// read-only or vanished file, a corrupt database).
	ErrStoreWrite = errors.New("the store could not be written")
)

// WriteError is a commit the store's file refused; nothing of it was
// written. errors.Is matches ErrStoreWrite, and ErrDiskFull when Full.
type WriteError struct {
	Full bool
	Err  error
}

func (e *WriteError) Error() string {
	kind := ErrStoreWrite
	if e.Full {
		kind = ErrDiskFull
	}
	return kind.Error() + ": " + e.Err.Error()
}

func (e *WriteError) Unwrap() error { return e.Err }

func (e *WriteError) Is(target error) bool {
	return target == ErrStoreWrite || (e.Full && target == ErrDiskFull)
}

// classifyWrite names a failed commit's cause when it is the file's, not
// the batch's: SQLITE_FULL, and an I/O error whose errno says the disk,
// quota or file size limit is exhausted, are ErrDiskFull; other I/O
// errors and a read-only, unopenable or corrupt file are ErrStoreWrite.
// Anything else (a constraint, a cancelled context) is returned as it is.
func classifyWrite(err error) error {
	if pe := pgError(err); pe != nil {
		return pgWriteError(err, pe)
	}
	var se sqlite3.Error
	if err == nil || !errors.As(err, &se) {
		return err
	}
	switch se.Code {
	case sqlite3.ErrFull:
		return &WriteError{Full: true, Err: err}
	case sqlite3.ErrIoErr:
		full := se.SystemErrno == syscall.ENOSPC || se.SystemErrno == syscall.EDQUOT || se.SystemErrno == syscall.EFBIG
		return &WriteError{Full: full, Err: err}
	case sqlite3.ErrReadonly, sqlite3.ErrCantOpen, sqlite3.ErrPerm, sqlite3.ErrCorrupt, sqlite3.ErrNotADB:
		return &WriteError{Err: err}
	}
	return err
}
