// Package files is Podium's file store: the bytes of resource files, deliverables, headshots and
// event images (docs/files.md). One small interface, Store, has two backends: a directory under
// the data directory (Disk, the default) and any S3-compatible object store (S3).
//
// Storage keys are "<organization id>/<file id>": the file id is random, never derived from what
// the caller sent, and the organization prefix keeps every object inside one tenant. A read
// rebuilds the key from the caller's organization, so another organization's object cannot be
// named at all.
//
// Consistency with PostgreSQL: an operation stores the bytes first (Service.Store), then writes
// the row that points at them in its transaction. Stored keys are tracked on the request (Track);
// once the transaction has ended, Settle queues the deletion of any stored key no row points at
// (the transaction rolled back). Replacing or removing a file queues the deletion of the old
// object in the same transaction (DeleteLater), so it happens only after the commit. A periodic
// sweep (package jobs) removes unreferenced objects older than a day, whatever left them.
package files

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/podium/podium/ent/schema/pid"
)

// Store holds bytes under keys. Implementations must be safe for concurrent use.
type Store interface {
	// Put stores size bytes from r under key. Nothing is visible under key unless Put succeeds.
	Put(ctx context.Context, key string, r io.Reader, size int64, contentType string) error
	// Open returns the object under key; ErrNotExist when there is none.
	Open(ctx context.Context, key string) (Object, error)
	// Delete removes the object under key; a missing object is not an error.
	Delete(ctx context.Context, key string) error
	// List calls fn for every object, with its last modification time.
	List(ctx context.Context, fn func(key string, modified time.Time) error) error
	// Name says which backend this is ("disk" or "s3"), for logs and docs.
	Name() string
}

// Object is a stored object opened for reading: it seeks, so a download can serve ranges.
type Object interface {
	io.ReadSeekCloser
	Size() int64
	Modified() time.Time
}

// ErrNotExist is returned by Open for a key with no object.
var ErrNotExist = errors.New("files: no such object")

// fileIDPrefix is the pid prefix of a file id.
const fileIDPrefix = "file"

// NewKey returns a fresh storage key of the organization org.
func NewKey(org string) string { return org + "/" + pid.New(fileIDPrefix) }

// Key returns the storage key of the file id in the organization org, or "" when either is not
// a well-formed id: keys are only ever built from ids, never from paths a caller sent.
func Key(org, fileID string) string {
	if !validOrg(org) || !pid.Plausible(fileID) || pid.Prefix(fileID) != fileIDPrefix {
		return ""
	}
	return org + "/" + fileID
}

// ParseKey splits a storage key into its organization and file id; ok is false for anything
// NewKey could not have made.
func ParseKey(key string) (org, fileID string, ok bool) {
	for i := 0; i < len(key); i++ {
		if key[i] == '/' {
			org, fileID = key[:i], key[i+1:]
			return org, fileID, Key(org, fileID) == key
		}
	}
	return "", "", false
}

func validOrg(org string) bool { return pid.Plausible(org) && pid.Prefix(org) == "org" }
