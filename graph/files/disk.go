package files

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/podium/podium/jobs"
)

// Disk keeps objects in a directory: <root>/<organization id>/<file id>. It serves one instance;
// several instances share files only through S3 (docs/files.md).
type Disk struct{ root string }

// partialPrefix names files being written; they are renamed into place once complete, so an
// interrupted write never leaves a partial object under a key.
const partialPrefix = ".partial-"

// NewDisk returns the store in root, creating the directory when needed.
func NewDisk(root string) (*Disk, error) {
	if err := os.MkdirAll(root, 0o700); err != nil {
		return nil, fmt.Errorf("files: disk store: %w", err)
	}
	return &Disk{root: root}, nil
}

// Name says this is the disk backend.
func (*Disk) Name() string { return "disk" }

// path is where key lives; keys are checked, so no key reaches outside root.
func (d *Disk) path(key string) (string, error) {
	org, id, ok := ParseKey(key)
	if !ok {
		return "", fmt.Errorf("files: malformed key %q", key)
	}
	return filepath.Join(d.root, org, id), nil
}

// Put writes the bytes to a partial file, syncs it and renames it into place.
func (d *Disk) Put(_ context.Context, key string, r io.Reader, size int64, _ string) error {
	p, err := d.path(key)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return fmt.Errorf("files: %w", err)
	}
	f, err := os.CreateTemp(filepath.Dir(p), partialPrefix+"*")
	if err != nil {
		return fmt.Errorf("files: %w", err)
	}
	done := false
	defer func() {
		if !done {
			_ = f.Close()
			_ = os.Remove(f.Name())
		}
	}()
	n, err := io.Copy(f, r)
	if err != nil {
		return fmt.Errorf("files: write %s: %w", key, err)
	}
	if n != size {
		return fmt.Errorf("files: write %s: %d bytes instead of %d", key, n, size)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("files: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("files: %w", err)
	}
	if err := os.Rename(f.Name(), p); err != nil {
		return fmt.Errorf("files: %w", err)
	}
	done = true
	return nil
}

// Open opens the file of key.
func (d *Disk) Open(_ context.Context, key string) (Object, error) {
	p, err := d.path(key)
	if err != nil {
		return nil, ErrNotExist
	}
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNotExist
	}
	if err != nil {
		return nil, fmt.Errorf("files: %w", err)
	}
	info, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("files: %w", err)
	}
	return diskObject{File: f, info: info}, nil
}

type diskObject struct {
	*os.File
	info fs.FileInfo
}

func (o diskObject) Size() int64         { return o.info.Size() }
func (o diskObject) Modified() time.Time { return o.info.ModTime() }

// Delete removes the file of key.
func (d *Disk) Delete(_ context.Context, key string) error {
	p, err := d.path(key)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("files: %w", err)
	}
	return nil
}

// List walks the stored files. Partial files older than a day, left by a crash mid-write, are
// removed on the way.
func (d *Disk) List(ctx context.Context, fn func(key string, modified time.Time) error) error {
	return filepath.WalkDir(d.root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if e.IsDir() {
			return nil
		}
		info, err := e.Info()
		if errors.Is(err, fs.ErrNotExist) {
			return nil // removed meanwhile
		}
		if err != nil {
			return err
		}
		if strings.HasPrefix(e.Name(), partialPrefix) {
			if time.Since(info.ModTime()) > jobs.FileOrphanAge {
				_ = os.Remove(p)
			}
			return nil
		}
		rel, err := filepath.Rel(d.root, p)
		if err != nil {
			return err
		}
		key := filepath.ToSlash(rel)
		if _, _, ok := ParseKey(key); !ok {
			return nil // not ours
		}
		return fn(key, info.ModTime())
	})
}
