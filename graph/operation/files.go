package operation

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/podium/podium/graph/model"

	"github.com/99designs/gqlgen/graphql"
	"github.com/jackc/pgx/v5"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/contact"
	"github.com/podium/podium/ent/deliverableassignment"
	"github.com/podium/podium/ent/resource"
	"github.com/podium/podium/ent/schema/pid"
	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/graph/apperr"
	"github.com/podium/podium/graph/files"
)

// File operations (docs/files.md). Each is a plain method taking the caller's identity from ctx
// (the viewer), so the GraphQL mutations of the organizer app and, later, the speaker portal call
// the same code. An upload checks access to its target first, then stores the bytes
// (files.Service.Put, which must run inside files.Track), then points the row at them in the
// caller's transaction; a replaced or removed object is deleted once that transaction commits.

// fileService is the file store, or a refusal when the server has none.
func (r *Service) fileService() (*files.Service, error) {
	if r.Files == nil {
		return nil, apperr.New(http.StatusServiceUnavailable, apperr.CodeUnavailable, "File storage is not configured")
	}
	return r.Files, nil
}

// AttachResourceFile stores up as the file of a resource of the event, replacing its link, embed
// or earlier file.
func (r *Service) AttachResourceFile(ctx context.Context, eventID, resourceID string, up files.Upload) (*model.ResourceRecord, error) {
	svc, res, err := r.resourceWithFiles(ctx, eventID, resourceID)
	if err != nil {
		return nil, err
	}
	stored, err := svc.Put(ctx, files.Document, up, files.Rules{})
	if err != nil {
		return nil, err
	}
	err = res.Update().SetAttachmentKind(resource.AttachmentKindFile).ClearLinkURL().ClearEmbedURL().
		SetFileStorageKey(stored.Key).SetFileName(stored.Name).SetFileContentType(stored.ContentType).
		SetFileSize(stored.Size).Exec(ctx)
	if err != nil {
		return nil, err
	}
	return r.fileReplaced(ctx, svc, res)
}

// RemoveResourceFile removes the file of a resource, which keeps its text and has no attachment.
func (r *Service) RemoveResourceFile(ctx context.Context, eventID, resourceID string) (*model.ResourceRecord, error) {
	svc, res, err := r.resourceWithFiles(ctx, eventID, resourceID)
	if err != nil {
		return nil, err
	}
	if res.AttachmentKind == nil || *res.AttachmentKind != resource.AttachmentKindFile {
		return nil, apperr.Invalid("This resource has no file")
	}
	err = res.Update().ClearAttachmentKind().ClearFileStorageKey().ClearFileName().ClearFileContentType().
		ClearFileSize().Exec(ctx)
	if err != nil {
		return nil, err
	}
	return r.fileReplaced(ctx, svc, res)
}

// resourceWithFiles is the file store and the resource resourceID of the event eventID, which the
// caller may access.
func (r *Service) resourceWithFiles(ctx context.Context, eventID, resourceID string) (*files.Service, *ent.Resource, error) {
	svc, err := r.fileService()
	if err != nil {
		return nil, nil, err
	}
	c := r.ClientOf(ctx)
	ev, err := access.Event(ctx, c, eventID)
	if err != nil {
		return nil, nil, err
	}
	res, err := ResourceOf(ctx, c, ev.ID, resourceID)
	return svc, res, err
}

// fileReplaced deletes, once the transaction commits, the file res held before it changed, and
// returns the resource as it is now.
func (r *Service) fileReplaced(ctx context.Context, svc *files.Service, res *ent.Resource) (*model.ResourceRecord, error) {
	if err := svc.DeleteLater(ctx, res.FileStorageKey); err != nil {
		return nil, err
	}
	return r.resource(ctx, res.ID)
}

// UploadEventImage stores up as the event's logo or background. The URL field becomes the REST
// download address of the image.
func (r *Service) UploadEventImage(ctx context.Context, eventID string, kind model.EventImageKind, up files.Upload) (*ent.Event, error) {
	return r.setEventImage(ctx, eventID, kind, &up)
}

// RemoveEventImage removes the event's logo or background.
func (r *Service) RemoveEventImage(ctx context.Context, eventID string, kind model.EventImageKind) (*ent.Event, error) {
	return r.setEventImage(ctx, eventID, kind, nil)
}

func (r *Service) setEventImage(ctx context.Context, eventID string, kind model.EventImageKind, up *files.Upload) (*ent.Event, error) {
	svc, err := r.fileService()
	if err != nil {
		return nil, err
	}
	c := r.ClientOf(ctx)
	ev, err := access.Event(ctx, c, eventID)
	if err != nil {
		return nil, err
	}
	old := ev.LogoKey
	if kind == model.EventImageKindBackground {
		old = ev.BackgroundKey
	}
	u := ev.Update()
	switch {
	case up == nil && kind == model.EventImageKindLogo:
		u.ClearLogoKey().ClearLogoURL()
	case up == nil:
		u.ClearBackgroundKey().ClearBackgroundURL()
	default:
		stored, err := svc.Put(ctx, files.Image, *up, files.Rules{})
		if err != nil {
			return nil, err
		}
		link := r.fileLink(ev.ID, stored.Key)
		if kind == model.EventImageKindLogo {
			u.SetLogoKey(stored.Key).SetLogoURL(link)
		} else {
			u.SetBackgroundKey(stored.Key).SetBackgroundURL(link)
		}
	}
	updated, err := u.Save(ctx)
	if err != nil {
		return nil, err
	}
	if err := svc.DeleteLater(ctx, old); err != nil {
		return nil, err
	}
	return updated, nil
}

// UploadSpeakerHeadshot stores up as the headshot of a contact of the event. headshotUrl becomes
// the REST download address of the photo.
func (r *Service) UploadSpeakerHeadshot(ctx context.Context, eventID, contactID string, up files.Upload) (*ent.Contact, error) {
	return r.setHeadshot(ctx, eventID, contactID, &up)
}

// RemoveSpeakerHeadshot removes the headshot of a contact of the event.
func (r *Service) RemoveSpeakerHeadshot(ctx context.Context, eventID, contactID string) (*ent.Contact, error) {
	return r.setHeadshot(ctx, eventID, contactID, nil)
}

func (r *Service) setHeadshot(ctx context.Context, eventID, contactID string, up *files.Upload) (*ent.Contact, error) {
	svc, err := r.fileService()
	if err != nil {
		return nil, err
	}
	c := r.ClientOf(ctx)
	ev, err := access.Event(ctx, c, eventID)
	if err != nil {
		return nil, err
	}
	person, err := EventSpeakerForUpdate(ctx, c, ev.ID, contactID)
	if err != nil {
		return nil, err
	}
	u := person.Update()
	if up == nil {
		u.ClearHeadshotKey().ClearHeadshotURL()
	} else {
		stored, err := svc.Put(ctx, files.Image, *up, files.Rules{})
		if err != nil {
			return nil, err
		}
		u.SetHeadshotKey(stored.Key).SetHeadshotURL(r.fileLink(ev.ID, stored.Key))
	}
	updated, err := u.Save(ctx)
	if err != nil {
		return nil, err
	}
	if err := svc.DeleteLater(ctx, person.HeadshotKey); err != nil {
		return nil, err
	}
	return updated, nil
}

// EventSpeakerForUpdate reads the speaker (contact) id of the event for an update.
func EventSpeakerForUpdate(ctx context.Context, c *ent.Client, eventID, id string) (*ent.Contact, error) {
	if !pid.Plausible(id) {
		return nil, apperr.NotFound("Speaker")
	}
	person, err := c.Contact.Query().Where(contact.ID(id), contact.EventID(eventID)).ForUpdate().Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apperr.NotFound("Speaker")
	}
	return person, err
}

// UploadDeliverable stores up as the file of a deliverable of a session, which becomes uploaded.
// The requirement's accepted types and size limit apply.
func (r *Service) UploadDeliverable(ctx context.Context, eventID, sessionID, id string, up files.Upload) (*model.Deliverable, error) {
	return r.setDeliverableFile(ctx, eventID, sessionID, id, &up)
}

// RemoveDeliverable removes the file of a deliverable, which becomes outstanding again.
func (r *Service) RemoveDeliverable(ctx context.Context, eventID, sessionID, id string) (*model.Deliverable, error) {
	return r.setDeliverableFile(ctx, eventID, sessionID, id, nil)
}

func (r *Service) setDeliverableFile(ctx context.Context, eventID, sessionID, id string, up *files.Upload) (*model.Deliverable, error) {
	svc, err := r.fileService()
	if err != nil {
		return nil, err
	}
	c := r.ClientOf(ctx)
	d, err := r.Deliverable(ctx, c, eventID, sessionID, id)
	if err != nil {
		return nil, err
	}
	u := c.DeliverableAssignment.UpdateOneID(d.ID)
	if up == nil {
		u.SetStatus(deliverableassignment.StatusOutstanding).ClearFileName().ClearContentType().ClearSize().
			ClearStorageKey().ClearUploadedAt()
	} else {
		req := d.Edges.Requirement
		rules := files.Rules{Extensions: files.AcceptTypes(req.AcceptTypes)}
		if req.MaxSizeMB != nil {
			rules.MaxBytes = int64(*req.MaxSizeMB) << 20
		}
		stored, err := svc.Put(ctx, files.Document, *up, rules)
		if err != nil {
			return nil, err
		}
		u.SetStatus(deliverableassignment.StatusUploaded).SetFileName(stored.Name).SetContentType(stored.ContentType).
			SetSize(stored.Size).SetStorageKey(stored.Key).SetUploadedAt(time.Now())
	}
	updated, err := u.Save(ctx)
	if err != nil {
		return nil, err
	}
	if err := svc.DeleteLater(ctx, d.StorageKey); err != nil {
		return nil, err
	}
	if up != nil || d.Status != deliverableassignment.StatusOutstanding {
		if err := r.readinessChanged(ctx, eventID, d.SubmissionID, d.ContactID, readinessDeliverable); err != nil {
			return nil, err
		}
	}
	updated.Edges.Requirement = d.Edges.Requirement
	return toDeliverable(updated), nil
}

// checkRecordedFile checks the storage key an API call records as a deliverable's upload
// (recordDeliverableUpload): with a file store, it must name a file stored for the caller's
// organization, of that size, so that deliverablesUploaded counts real uploads only.
func (r *Service) checkRecordedFile(ctx context.Context, key string, size int64) error {
	if r.Files == nil {
		return nil
	}
	org, _, ok := files.ParseKey(key)
	notStored := apperr.Invalid("storageKey must name a file uploaded to Podium (uploadDeliverable stores one)")
	if !ok || org != viewer.OrganizationID(ctx) {
		return notStored
	}
	obj, err := r.Files.Store.Open(ctx, key)
	if errors.Is(err, files.ErrNotExist) {
		return notStored
	}
	if err != nil {
		return err
	}
	defer func() { _ = obj.Close() }()
	if obj.Size() != size {
		return apperr.Invalid("size must be the stored file's size, %d bytes", obj.Size())
	}
	return nil
}

// releaseFile queues the deletion of a file a row stopped pointing at, once the change commits.
func (r *Service) releaseFile(ctx context.Context, key *string) error {
	if r.Files == nil {
		return nil
	}
	return r.Files.DeleteLater(ctx, key)
}

// Upload is a GraphQL upload as the file operations take it.
func Upload(u *graphql.Upload) files.Upload {
	if u == nil {
		return files.Upload{}
	}
	return files.Upload{Name: u.Filename, File: u.File, Size: u.Size}
}

// fileLink is the REST address that downloads key, a file of the event.
func (r *Service) fileLink(eventID, key string) string {
	_, id, _ := files.ParseKey(key)
	return r.Files.PublicURL + "/api/v1/events/" + eventID + "/files/" + id
}

// SignedLink is a signed download URL of key, or nil when there is no file.
func (r *Service) SignedLink(key *string) *string {
	if key == nil || r.Files == nil {
		return nil
	}
	if u := r.Files.SignedURL(*key); u != "" {
		return &u
	}
	return nil
}

// DownloadLink is a signed address that downloads key without credentials for a while, for the
// pages that offer a person their own files; empty when there is no file or no storage.
func (r *Service) DownloadLink(key *string) string {
	if u := r.SignedLink(key); u != nil {
		return *u
	}
	return ""
}

// OpenedFile is a stored file opened for a download.
type OpenedFile struct {
	Object      files.Object
	Name        string
	ContentType string
}

// openFileSQL finds the row that points at a key, within one event when $1 is not null; row-level
// security holds it to the organization of the context. Images keep no name or type: theirs come
// from the bytes.
const openFileSQL = `
SELECT file_name, file_content_type FROM resources
 WHERE file_storage_key = $2 AND ($1::text IS NULL OR event_id = $1)
UNION ALL
SELECT d.file_name, d.content_type FROM deliverable_assignments d JOIN submissions s ON s.id = d.submission_id
 WHERE d.storage_key = $2 AND ($1::text IS NULL OR s.event_id = $1)
UNION ALL
SELECT 'logo', NULL FROM events WHERE logo_key = $2 AND ($1::text IS NULL OR id = $1)
UNION ALL
SELECT 'background', NULL FROM events WHERE background_key = $2 AND ($1::text IS NULL OR id = $1)
UNION ALL
SELECT 'headshot', NULL FROM contacts WHERE headshot_key = $2 AND ($1::text IS NULL OR event_id = $1)
LIMIT 1`

// OpenEventFile opens the file fileID of the event for the caller: the key is built from the
// caller's organization, and a row of the event must point at it, so neither another
// organization's file nor an unused object can be read.
func (r *Service) OpenEventFile(ctx context.Context, eventID, fileID string) (*OpenedFile, error) {
	ev, err := access.Event(ctx, r.ClientOf(ctx), eventID)
	if err != nil {
		return nil, err
	}
	key := files.Key(viewer.OrganizationID(ctx), fileID)
	if key == "" {
		return nil, apperr.NotFound("File")
	}
	return r.openFile(ctx, &ev.ID, key)
}

// OpenSignedFile opens the file of a signed URL's key; ctx is scoped to the key's organization.
func (r *Service) OpenSignedFile(ctx context.Context, key string) (*OpenedFile, error) {
	return r.openFile(ctx, nil, key)
}

func (r *Service) openFile(ctx context.Context, eventID *string, key string) (*OpenedFile, error) {
	svc, err := r.fileService()
	if err != nil {
		return nil, err
	}
	var name, contentType *string
	err = r.sql(ctx).QueryRow(ctx, openFileSQL, eventID, key).Scan(&name, &contentType)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, apperr.NotFound("File")
	}
	if err != nil {
		return nil, err
	}
	obj, err := svc.Store.Open(ctx, key)
	if errors.Is(err, files.ErrNotExist) {
		return nil, apperr.NotFound("File")
	}
	if err != nil {
		return nil, err
	}
	f := &OpenedFile{Object: obj, Name: deref(name), ContentType: deref(contentType)}
	if f.ContentType == "" {
		// An image: its type was checked against its bytes on upload; read it from them again.
		head := make([]byte, 512)
		n, _ := io.ReadFull(obj, head)
		if _, err := obj.Seek(0, io.SeekStart); err != nil {
			_ = obj.Close()
			return nil, err
		}
		f.ContentType = http.DetectContentType(head[:n])
		f.Name += "." + strings.TrimPrefix(f.ContentType, "image/")
	}
	return f, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
