package jobs

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/podium/podium/ent/schema/viewer"
)

// FileObjects is what the file jobs need of the file store (package graph/files).
type FileObjects interface {
	Delete(ctx context.Context, key string) error
	List(ctx context.Context, fn func(key string, modified time.Time) error) error
}

// DeleteFileArgs asks for a stored object to be deleted once no row points at it: queued in the
// transaction that replaced or removed a file (so only after it commits), or after a request
// whose transaction rolled back left an upload unused (docs/files.md).
type DeleteFileArgs struct {
	OrganizationID string `json:"organizationId"`
	Key            string `json:"key"`
}

// Kind names the job.
func (DeleteFileArgs) Kind() string { return "delete_file" }

// InsertOpts puts the job on the maintenance queue.
func (DeleteFileArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: MaintenanceQueue, MaxAttempts: 10}
}

// DeleteFileWorker deletes an object no row points at. A row that points at it (the key was
// queued by mistake) keeps it: a row never points at bytes that are gone.
type DeleteFileWorker struct {
	river.WorkerDefaults[DeleteFileArgs]
	Pool  *pgxpool.Pool
	Files FileObjects
}

// Work deletes the object unless it is in use.
func (w *DeleteFileWorker) Work(ctx context.Context, job *river.Job[DeleteFileArgs]) error {
	if w.Files == nil {
		return errors.New("jobs: no file store configured")
	}
	org, _, _ := strings.Cut(job.Args.Key, "/")
	if org == "" || org != job.Args.OrganizationID {
		return river.JobCancel(fmt.Errorf("jobs: key %q is not of organization %q", job.Args.Key, job.Args.OrganizationID))
	}
	return deleteUnused(viewer.WithOrganization(ctx, org), w.Pool, w.Files, job.Args.Key)
}

func deleteUnused(ctx context.Context, pool *pgxpool.Pool, files FileObjects, key string) error {
	used, err := FileReferenced(ctx, pool, key)
	if err != nil || used {
		return err
	}
	return files.Delete(ctx, key)
}

// fileReferencedSQL tells whether any row of the organization in scope points at a key. Row-level
// security holds it to that organization.
const fileReferencedSQL = `SELECT EXISTS (SELECT 1 FROM resources WHERE file_storage_key = $1)
	OR EXISTS (SELECT 1 FROM deliverable_assignments WHERE storage_key = $1)
	OR EXISTS (SELECT 1 FROM events WHERE logo_key = $1 OR background_key = $1)
	OR EXISTS (SELECT 1 FROM contacts WHERE headshot_key = $1)`

// FileReferenced reports whether a row of the organization of ctx points at key.
func FileReferenced(ctx context.Context, q interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}, key string) (bool, error) {
	var used bool
	if err := q.QueryRow(ctx, fileReferencedSQL, key).Scan(&used); err != nil {
		return false, fmt.Errorf("jobs: is file %s in use: %w", key, err)
	}
	return used, nil
}

// sweepFilesEvery is how often the store is swept for orphans.
const sweepFilesEvery = 6 * time.Hour

// FileOrphanAge is how old an unused object must be before the sweep deletes it: far longer than
// any upload's transaction, so an upload whose row is about to commit is never taken.
const FileOrphanAge = 24 * time.Hour

// SweepFilesArgs asks for the objects no row points at and older than a day to be deleted:
// those a crash left between storing the bytes and committing the row, and those of rows deleted
// with what they hung off (a resource, a session, a requirement).
type SweepFilesArgs struct{}

// Kind names the job.
func (SweepFilesArgs) Kind() string { return "sweep_files" }

// InsertOpts makes one sweep per period however many processes run.
func (SweepFilesArgs) InsertOpts() river.InsertOpts { return maintenanceOnce(sweepFilesEvery) }

// SweepFilesWorker deletes orphaned objects.
type SweepFilesWorker struct {
	river.WorkerDefaults[SweepFilesArgs]
	Pool  *pgxpool.Pool
	Files FileObjects
	// Now is the clock; time.Now when nil (tests move it forward).
	Now func() time.Time
}

// Timeout allows a long listing of a large bucket.
func (*SweepFilesWorker) Timeout(*river.Job[SweepFilesArgs]) time.Duration { return time.Hour }

// Work lists the store and deletes each object old enough that no row of its organization points
// at.
func (w *SweepFilesWorker) Work(ctx context.Context, _ *river.Job[SweepFilesArgs]) error {
	if w.Files == nil {
		return nil
	}
	now := time.Now
	if w.Now != nil {
		now = w.Now
	}
	cutoff := now().Add(-FileOrphanAge)
	return w.Files.List(ctx, func(key string, modified time.Time) error {
		if modified.After(cutoff) {
			return nil
		}
		org, _, _ := strings.Cut(key, "/")
		return deleteUnused(viewer.WithOrganization(ctx, org), w.Pool, w.Files, key)
	})
}

// filePeriodicJobs is the sweep, queued by the elected leader.
func filePeriodicJobs() []*river.PeriodicJob {
	return []*river.PeriodicJob{every(sweepFilesEvery, SweepFilesArgs{})}
}
