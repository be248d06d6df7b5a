package operation

import (
	"context"
	"strings"
	"time"

	"github.com/podium/podium/graph/model"

	"github.com/jackc/pgx/v5"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/deliverableassignment"
	"github.com/podium/podium/ent/filerequirement"
	"github.com/podium/podium/ent/schema/pid"
	"github.com/podium/podium/ent/submission"
	"github.com/podium/podium/ent/taskassignment"
	"github.com/podium/podium/ent/tasktemplate"
	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/graph/apperr"
	"github.com/podium/podium/graph/scalar"
)

// Readiness inputs: task templates and file requirements, and the tasks and deliverables they give
// each session. Session-scoped ones give one per session, speaker-scoped ones one per speaker of
// it. Sessions get them when they are accepted or created directly, and when their speakers
// change; new templates and requirements reach the active sessions at once.

// assignReadiness gives the sessions the tasks of every auto-assigned template and the deliverables
// of every auto-assigned file requirement they do not have yet, and reports how many tasks it
// created. Repeats are harmless: the assignments' unique indexes absorb them.
func (r *Service) assignReadiness(ctx context.Context, eventID string, sessionIDs ...string) (int, error) {
	if len(sessionIDs) == 0 {
		return 0, nil
	}
	tasks, err := r.assign(ctx, "task_templates", "task_assignments", "task", "todo", eventID, sessionIDs)
	if err != nil {
		return 0, err
	}
	_, err = r.assign(ctx, "file_requirements", "deliverable_assignments", "dlv", "outstanding", eventID, sessionIDs)
	return tasks, err
}

// assign inserts the assignments an input table (templates or requirements) calls for: one per
// session for session-scoped inputs, one per speaker of the session for speaker-scoped ones.
func (r *Service) assign(ctx context.Context, inputs, assignments, prefix, status, eventID string, sessionIDs []string) (int, error) {
	q := r.sql(ctx)
	rows, err := q.Query(ctx, `
SELECT i.id, s.id, p.contact_id
FROM `+inputs+` i
JOIN submissions s ON s.event_id = i.event_id AND s.id = ANY($2)
LEFT JOIN submission_participants p ON i.scope = 'speaker' AND p.submission_id = s.id
WHERE i.event_id = $1 AND i.auto_assign_on_accept AND (i.scope = 'session' OR p.contact_id IS NOT NULL)`,
		eventID, sessionIDs)
	if err != nil {
		return 0, err
	}
	type due struct {
		Input, Sub string
		Contact    *string
	}
	list, err := pgx.CollectRows(rows, pgx.RowToStructByPos[due])
	if err != nil || len(list) == 0 {
		return 0, err
	}
	ids, inputIDs, subs, contacts := make([]string, len(list)), make([]string, len(list)), make([]string, len(list)), make([]*string, len(list))
	for i, d := range list {
		ids[i], inputIDs[i], subs[i], contacts[i] = pid.New(prefix), d.Input, d.Sub, d.Contact
	}
	column := "template_id"
	if inputs == "file_requirements" {
		column = "requirement_id"
	}
	tag, err := q.Exec(ctx, `
INSERT INTO `+assignments+` (id, created_at, updated_at, `+column+`, submission_id, contact_id, status)
SELECT v.id, now(), now(), v.input, v.sub, v.contact, $5
FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS v(id, input, sub, contact)
ON CONFLICT DO NOTHING`, ids, inputIDs, subs, contacts, status)
	if err != nil {
		return 0, err
	}
	return int(tag.RowsAffected()), nil
}

// dropLeftSpeakers removes the speaker-scoped tasks and deliverables of people no longer speaking
// in the session.
func (r *Service) dropLeftSpeakers(ctx context.Context, sessionID string) error {
	q := r.sql(ctx)
	for _, table := range []string{"task_assignments", "deliverable_assignments"} {
		if _, err := q.Exec(ctx, `DELETE FROM `+table+` a WHERE a.submission_id = $1 AND a.contact_id IS NOT NULL
AND NOT EXISTS (SELECT 1 FROM submission_participants p WHERE p.submission_id = a.submission_id AND p.contact_id = a.contact_id)`,
			sessionID); err != nil {
			return err
		}
	}
	return nil
}

// activeSessions lists the accepted, not cancelled sessions of the event.
func activeSessions(ctx context.Context, c *ent.Client, eventID string) ([]string, error) {
	return c.Submission.Query().
		Where(submission.EventID(eventID), submission.StatusEQ(submission.StatusAccepted), submission.CancelledAtIsNil()).
		IDs(ctx)
}

func toTaskTemplate(t *ent.TaskTemplate) *model.TaskTemplate {
	return &model.TaskTemplate{ID: t.ID, CreatedAt: scalar.At(t.CreatedAt), UpdatedAt: scalar.At(t.UpdatedAt),
		EventID: t.EventID, Title: t.Title, Instructions: t.Instructions, Scope: model.ReadinessScope(t.Scope),
		AutoAssignOnAccept: t.AutoAssignOnAccept, DueDate: scalar.AtPtr(t.DueDate), Position: t.Position}
}

func toFileRequirement(f *ent.FileRequirement) *model.FileRequirement {
	return &model.FileRequirement{ID: f.ID, CreatedAt: scalar.At(f.CreatedAt), UpdatedAt: scalar.At(f.UpdatedAt),
		EventID: f.EventID, Label: f.Label, Description: f.Description, Scope: model.ReadinessScope(f.Scope),
		DueAt: scalar.AtPtr(f.DueAt), Position: f.Position}
}

// TaskTemplates lists the event's task templates by position; the events of one request are
// read together (loaders).
func (r *Service) TaskTemplates(ctx context.Context, ev *ent.Event) ([]*model.TaskTemplate, error) {
	return r.loaders(ctx).taskTemplates.Load(ctx, ev.ID)
}

// FileRequirements lists the event's file requirements by position; the events of one request
// are read together (loaders).
func (r *Service) FileRequirements(ctx context.Context, ev *ent.Event) ([]*model.FileRequirement, error) {
	return r.loaders(ctx).fileRequirements.Load(ctx, ev.ID)
}

// SaveTaskTemplate creates (id null) or updates a task template. A new auto-assigned template
// reaches the active sessions at once.
func (r *Service) SaveTaskTemplate(ctx context.Context, eventID string, in model.SaveTaskTemplateInput) (*model.TaskTemplate, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.TaskTemplate, error) {
		c := r.ClientOf(ctx)
		ev, err := access.Event(ctx, c, eventID)
		if err != nil {
			return nil, err
		}
		title := strings.TrimSpace(in.Title)
		if title == "" {
			return nil, apperr.Invalid("Enter a title")
		}
		auto := in.AutoAssignOnAccept == nil || *in.AutoAssignOnAccept
		instructions := ""
		if in.Instructions != nil {
			instructions = *in.Instructions
		}
		if in.ID != nil {
			t, err := c.TaskTemplate.Query().Where(tasktemplate.ID(*in.ID), tasktemplate.EventID(ev.ID)).Only(ctx)
			if ent.IsNotFound(err) || !pid.Plausible(*in.ID) {
				return nil, apperr.NotFound("Task template")
			}
			if err != nil {
				return nil, err
			}
			if t.Scope != tasktemplate.Scope(in.Scope) {
				return nil, apperr.Invalid("The scope of a task template cannot change; create a new template instead")
			}
			t, err = t.Update().SetTitle(title).SetInstructions(instructions).SetAutoAssignOnAccept(auto).
				SetNillableDueDate(in.DueDate).Save(ctx)
			if err != nil {
				return nil, err
			}
			if in.DueDate == nil {
				if t, err = t.Update().ClearDueDate().Save(ctx); err != nil {
					return nil, err
				}
			}
			return toTaskTemplate(t), nil
		}
		n, err := c.TaskTemplate.Query().Where(tasktemplate.EventID(ev.ID)).Count(ctx)
		if err != nil {
			return nil, err
		}
		t, err := c.TaskTemplate.Create().SetEventID(ev.ID).SetTitle(title).SetInstructions(instructions).
			SetScope(tasktemplate.Scope(in.Scope)).SetAutoAssignOnAccept(auto).SetNillableDueDate(in.DueDate).
			SetPosition(n + 1).Save(ctx)
		if err != nil {
			return nil, err
		}
		if auto {
			if err := r.reachActiveSessions(ctx, c, ev.ID); err != nil {
				return nil, err
			}
		}
		return toTaskTemplate(t), nil
	})
}

// reachActiveSessions assigns what the readiness inputs call for to every active session.
func (r *Service) reachActiveSessions(ctx context.Context, c *ent.Client, eventID string) error {
	ids, err := activeSessions(ctx, c, eventID)
	if err != nil {
		return err
	}
	_, err = r.assignReadiness(ctx, eventID, ids...)
	return err
}

// DeleteTaskTemplate deletes a template and its tasks.
func (r *Service) DeleteTaskTemplate(ctx context.Context, eventID, id string) (string, error) {
	return inTx(ctx, r, func(ctx context.Context) (string, error) {
		c := r.ClientOf(ctx)
		ev, err := access.Event(ctx, c, eventID)
		if err != nil {
			return "", err
		}
		n, err := c.TaskTemplate.Delete().Where(tasktemplate.ID(id), tasktemplate.EventID(ev.ID)).Exec(ctx)
		if err != nil {
			return "", err
		}
		if n == 0 {
			return "", apperr.NotFound("Task template")
		}
		return id, nil
	})
}

// SaveFileRequirement creates (id null) or updates a file requirement. A new one reaches the
// active sessions at once.
func (r *Service) SaveFileRequirement(ctx context.Context, eventID string, in model.SaveFileRequirementInput) (*model.FileRequirement, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.FileRequirement, error) {
		c := r.ClientOf(ctx)
		ev, err := access.Event(ctx, c, eventID)
		if err != nil {
			return nil, err
		}
		label := strings.TrimSpace(in.Label)
		if label == "" {
			return nil, apperr.Invalid("Enter a label")
		}
		description := ""
		if in.Description != nil {
			description = *in.Description
		}
		if in.ID != nil {
			f, err := c.FileRequirement.Query().Where(filerequirement.ID(*in.ID), filerequirement.EventID(ev.ID)).Only(ctx)
			if ent.IsNotFound(err) || !pid.Plausible(*in.ID) {
				return nil, apperr.NotFound("File requirement")
			}
			if err != nil {
				return nil, err
			}
			if f.Scope != filerequirement.Scope(in.Scope) {
				return nil, apperr.Invalid("The scope of a file requirement cannot change; create a new one instead")
			}
			u := f.Update().SetLabel(label).SetDescription(description)
			if in.DueAt == nil {
				u.ClearDueAt()
			} else {
				u.SetDueAt(*in.DueAt)
			}
			if f, err = u.Save(ctx); err != nil {
				return nil, err
			}
			return toFileRequirement(f), nil
		}
		n, err := c.FileRequirement.Query().Where(filerequirement.EventID(ev.ID)).Count(ctx)
		if err != nil {
			return nil, err
		}
		f, err := c.FileRequirement.Create().SetEventID(ev.ID).SetLabel(label).SetDescription(description).
			SetScope(filerequirement.Scope(in.Scope)).SetNillableDueAt(in.DueAt).SetPosition(n + 1).Save(ctx)
		if err != nil {
			return nil, err
		}
		if err := r.reachActiveSessions(ctx, c, ev.ID); err != nil {
			return nil, err
		}
		return toFileRequirement(f), nil
	})
}

// DeleteFileRequirement deletes a requirement and its deliverables.
func (r *Service) DeleteFileRequirement(ctx context.Context, eventID, id string) (string, error) {
	return inTx(ctx, r, func(ctx context.Context) (string, error) {
		c := r.ClientOf(ctx)
		ev, err := access.Event(ctx, c, eventID)
		if err != nil {
			return "", err
		}
		n, err := c.FileRequirement.Delete().Where(filerequirement.ID(id), filerequirement.EventID(ev.ID)).Exec(ctx)
		if err != nil {
			return "", err
		}
		if n == 0 {
			return "", apperr.NotFound("File requirement")
		}
		return id, nil
	})
}

// SessionTasks lists a session's tasks, speakers' tasks included, by template position.
func (r *Service) SessionTasks(ctx context.Context, sessionID string) ([]*model.Task, error) {
	return r.loaders(ctx).tasks.Load(ctx, sessionID)
}

func toTask(a *ent.TaskAssignment) *model.Task {
	t := a.Edges.Template
	return &model.Task{ID: a.ID, SessionID: a.SubmissionID, TemplateID: a.TemplateID, Title: t.Title,
		Scope: model.ReadinessScope(t.Scope), ContactID: a.ContactID, Status: model.TaskStatus(a.Status),
		Instructions: t.Instructions, DueDate: scalar.AtPtr(t.DueDate), CompletedAt: scalar.AtPtr(a.CompletedAt), SortPosition: t.Position}
}

// SessionDeliverables lists a session's deliverables, speakers' ones included, by requirement
// position.
func (r *Service) SessionDeliverables(ctx context.Context, sessionID string) ([]*model.Deliverable, error) {
	return r.loaders(ctx).deliverables.Load(ctx, sessionID)
}

func toDeliverable(a *ent.DeliverableAssignment) *model.Deliverable {
	f := a.Edges.Requirement
	d := &model.Deliverable{ID: a.ID, SessionID: a.SubmissionID, RequirementID: a.RequirementID, Label: f.Label,
		Description: f.Description, DueAt: scalar.AtPtr(f.DueAt), Scope: model.ReadinessScope(f.Scope), ContactID: a.ContactID, Status: model.DeliverableStatus(a.Status),
		FileName: a.FileName, ContentType: a.ContentType, StorageKey: a.StorageKey,
		UploadedAt: scalar.AtPtr(a.UploadedAt), SortPosition: f.Position}
	if a.Size != nil {
		d.Size = new(int(*a.Size))
	}
	return d
}

// SetTaskStatus marks a session's task todo, done or waived.
func (r *Service) SetTaskStatus(ctx context.Context, eventID, sessionID, taskID string, in model.SetTaskStatusInput) (*model.Task, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.Task, error) {
		c := r.ClientOf(ctx)
		ev, err := access.Event(ctx, c, eventID)
		if err != nil {
			return nil, err
		}
		if _, err := sessionEntity(ctx, c, ev.ID, sessionID, false); err != nil {
			return nil, err
		}
		a, err := c.TaskAssignment.Query().Where(taskassignment.ID(taskID), taskassignment.SubmissionID(sessionID)).
			WithTemplate().Only(ctx)
		if ent.IsNotFound(err) || !pid.Plausible(taskID) {
			return nil, apperr.NotFound("Task")
		}
		if err != nil {
			return nil, err
		}
		u := a.Update().SetStatus(taskassignment.Status(in.Status))
		if in.Status == model.TaskStatusDone {
			u.SetCompletedAt(time.Now())
		} else {
			u.ClearCompletedAt()
		}
		updated, err := u.Save(ctx)
		if err != nil {
			return nil, err
		}
		if a.Status != taskassignment.Status(in.Status) {
			if err := r.readinessChanged(ctx, ev.ID, a.SubmissionID, a.ContactID, readinessTask); err != nil {
				return nil, err
			}
		}
		updated.Edges.Template = a.Edges.Template
		return toTask(updated), nil
	})
}

// Deliverable loads a deliverable of a session of the event.
func (r *Service) Deliverable(ctx context.Context, c *ent.Client, eventID, sessionID, id string) (*ent.DeliverableAssignment, error) {
	ev, err := access.Event(ctx, c, eventID)
	if err != nil {
		return nil, err
	}
	if _, err := sessionEntity(ctx, c, ev.ID, sessionID, false); err != nil {
		return nil, err
	}
	d, err := c.DeliverableAssignment.Query().
		Where(deliverableassignment.ID(id), deliverableassignment.SubmissionID(sessionID)).
		WithRequirement().Only(ctx)
	if ent.IsNotFound(err) || !pid.Plausible(id) {
		return nil, apperr.NotFound("Deliverable")
	}
	return d, err
}

// RecordDeliverableUpload records the file uploaded for a deliverable.
func (r *Service) RecordDeliverableUpload(ctx context.Context, eventID, sessionID, id string, in model.RecordDeliverableUploadInput) (*model.Deliverable, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.Deliverable, error) {
		c := r.ClientOf(ctx)
		d, err := r.Deliverable(ctx, c, eventID, sessionID, id)
		if err != nil {
			return nil, err
		}
		for field, value := range map[string]string{"fileName": in.FileName, "contentType": in.ContentType, "storageKey": in.StorageKey} {
			if strings.TrimSpace(value) == "" {
				return nil, apperr.Invalid("%s must not be empty", field)
			}
		}
		if in.Size < 0 {
			return nil, apperr.Invalid("size must not be negative")
		}
		if err := r.checkRecordedFile(ctx, in.StorageKey, int64(in.Size)); err != nil {
			return nil, err
		}
		updated, err := d.Update().SetStatus(deliverableassignment.StatusUploaded).SetFileName(in.FileName).
			SetContentType(in.ContentType).SetSize(int64(in.Size)).SetStorageKey(in.StorageKey).
			SetUploadedAt(time.Now()).Save(ctx)
		if err != nil {
			return nil, err
		}
		if d.StorageKey != nil && *d.StorageKey != in.StorageKey {
			if err := r.releaseFile(ctx, d.StorageKey); err != nil {
				return nil, err
			}
		}
		if err := r.readinessChanged(ctx, eventID, d.SubmissionID, d.ContactID, readinessDeliverable); err != nil {
			return nil, err
		}
		updated.Edges.Requirement = d.Edges.Requirement
		return toDeliverable(updated), nil
	})
}

// ClearDeliverableUpload marks a deliverable outstanding again.
func (r *Service) ClearDeliverableUpload(ctx context.Context, eventID, sessionID, id string) (*model.Deliverable, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.Deliverable, error) {
		c := r.ClientOf(ctx)
		d, err := r.Deliverable(ctx, c, eventID, sessionID, id)
		if err != nil {
			return nil, err
		}
		updated, err := d.Update().SetStatus(deliverableassignment.StatusOutstanding).ClearFileName().
			ClearContentType().ClearSize().ClearStorageKey().ClearUploadedAt().Save(ctx)
		if err != nil {
			return nil, err
		}
		if err := r.releaseFile(ctx, d.StorageKey); err != nil {
			return nil, err
		}
		if d.Status != deliverableassignment.StatusOutstanding {
			if err := r.readinessChanged(ctx, eventID, d.SubmissionID, d.ContactID, readinessDeliverable); err != nil {
				return nil, err
			}
		}
		updated.Edges.Requirement = d.Edges.Requirement
		return toDeliverable(updated), nil
	})
}
