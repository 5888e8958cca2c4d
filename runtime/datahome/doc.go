// Package datahome finds and guards troupe's data home ($TROUPE_HOME, else
// ~/.troupe): where it is, that it is usable, that no other local user
// can read it (a home found open is tightened with one warning), and the
// per-home key that marks the tool processes troupe starts.
//
// It is a library: it knows nothing of actors, sessions or the store's
// contents, only the files' places and permissions.
package datahome
