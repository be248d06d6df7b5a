package rest

import (
	"context"

	"github.com/podium/podium/graph/model"
)

// Readiness: the task templates and file requirements of an event, and the tasks and
// deliverables they give each session and speaker (docs/rest-api.md §4, ext).

func (a *API) listTaskTemplates(ctx context.Context, q *request) (any, error) {
	ev, err := a.event(ctx, q)
	if err != nil {
		return nil, err
	}
	return a.ops.TaskTemplates(ctx, ev)
}

func (a *API) saveTaskTemplate(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.SaveTaskTemplateInput](q)
	if err != nil {
		return nil, err
	}
	return a.ops.SaveTaskTemplate(ctx, q.param("eventId"), in)
}

func (a *API) deleteTaskTemplate(ctx context.Context, q *request) (any, error) {
	return a.ops.DeleteTaskTemplate(ctx, q.param("eventId"), q.param("templateId"))
}

func (a *API) listFileRequirements(ctx context.Context, q *request) (any, error) {
	ev, err := a.event(ctx, q)
	if err != nil {
		return nil, err
	}
	return a.ops.FileRequirements(ctx, ev)
}

func (a *API) saveFileRequirement(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.SaveFileRequirementInput](q)
	if err != nil {
		return nil, err
	}
	return a.ops.SaveFileRequirement(ctx, q.param("eventId"), in)
}

func (a *API) deleteFileRequirement(ctx context.Context, q *request) (any, error) {
	return a.ops.DeleteFileRequirement(ctx, q.param("eventId"), q.param("requirementId"))
}

func (a *API) listSessionTasks(ctx context.Context, q *request) (any, error) {
	s, err := a.session(ctx, q)
	if err != nil {
		return nil, err
	}
	return a.ops.SessionTasks(ctx, s.ID)
}

func (a *API) setTaskStatus(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.SetTaskStatusInput](q)
	if err != nil {
		return nil, err
	}
	return a.ops.SetTaskStatus(ctx, q.param("eventId"), q.param("submissionId"), q.param("taskId"), in)
}

func (a *API) listSessionDeliverables(ctx context.Context, q *request) (any, error) {
	s, err := a.session(ctx, q)
	if err != nil {
		return nil, err
	}
	return a.ops.SessionDeliverables(ctx, s.ID)
}

func (a *API) recordDeliverableUpload(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.RecordDeliverableUploadInput](q)
	if err != nil {
		return nil, err
	}
	return a.ops.RecordDeliverableUpload(ctx, q.param("eventId"), q.param("submissionId"), q.param("deliverableId"), in)
}

func (a *API) clearDeliverableUpload(ctx context.Context, q *request) (any, error) {
	return a.ops.ClearDeliverableUpload(ctx, q.param("eventId"), q.param("submissionId"), q.param("deliverableId"))
}

// session loads the session of the path, after checking event access.
func (a *API) session(ctx context.Context, q *request) (*model.Session, error) {
	ev, err := a.event(ctx, q)
	if err != nil {
		return nil, err
	}
	return a.ops.Session(ctx, ev.ID, q.param("submissionId"))
}
