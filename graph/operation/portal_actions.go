package operation

import (
	"context"
	"strconv"
	"strings"

	"github.com/podium/podium/graph/model"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/contact"
	"github.com/podium/podium/ent/deliverableassignment"
	"github.com/podium/podium/ent/emaillog"
	"github.com/podium/podium/ent/organizationmember"
	"github.com/podium/podium/ent/predicate"
	"github.com/podium/podium/ent/schema/pid"
	"github.com/podium/podium/ent/submission"
	"github.com/podium/podium/ent/submissionparticipant"
	"github.com/podium/podium/ent/taskassignment"
	"github.com/podium/podium/ent/timelineentry"
	"github.com/podium/podium/graph/apperr"
	"github.com/podium/podium/graph/email"
	"github.com/podium/podium/graph/files"
)

// What a signed-in speaker changes of their own (docs/portal.md): they confirm or decline
// taking part in an event, mark their tasks done or not, and upload, replace or remove the files
// they owe. Each change finds its target among the caller's contacts (as the reads of
// graph/operation/portal.go do), then runs the organizers' operation on it — setSpeakerWorkflow,
// setTaskStatus, UploadDeliverable — in one transaction of the contact's organization, so the
// rules are those of the organizer side. Another speaker's id answers as an id that does not
// exist, and nothing is written.

var (
	errMyTaskNotFound        = apperr.NotFound("Task")
	ErrMyDeliverableNotFound = apperr.NotFound("Deliverable")
	errTaskWaived            = apperr.Invalid("The organizers waived this task: it needs nothing from you")
	errNoActiveSession       = apperr.Invalid("You have no accepted session at this event: there is nothing to confirm or decline yet")
)

// mySessionPredicates are the accepted, uncancelled sessions of ct's event where ct speaks.
func mySessionPredicates(ct *ent.Contact) []predicate.Submission {
	return []predicate.Submission{submission.EventID(ct.EventID), submission.StatusEQ(submission.StatusAccepted),
		submission.CancelledAtIsNil(), submission.HasParticipantsWith(submissionparticipant.ContactID(ct.ID))}
}

// OnMine runs change in one transaction of the organization of the caller's contact for which
// find locates id (find answers ent's not-found error for a contact it is not theirs); notFound
// when none does.
func (r *Service) OnMine(ctx context.Context, id string, notFound error,
	find func(ctx context.Context, ct *ent.Contact) error, change func(ctx context.Context, ct *ent.Contact) error) error {
	if err := alone(ctx); err != nil {
		return err
	}
	if !pid.Plausible(id) {
		return notFound
	}
	for _, c := range speakingOf(ctx) {
		found := false
		err := r.DB.InTx(inOrganization(ctx, c.OrganizationID), func(ctx context.Context) error {
			ct, err := r.OwnContact(ctx, c.ContactID)
			if err != nil {
				return err
			}
			if err := find(ctx, ct); ent.IsNotFound(err) {
				return nil
			} else if err != nil {
				return err
			}
			found = true
			return change(ctx, ct)
		})
		if err != nil || found {
			return err
		}
	}
	return notFound
}

// ConfirmMyParticipation records that the caller takes part in the event of their contact
// contactID: confirmedAt is stamped the first time, and the workflow status becomes confirmed
// unless it is already confirmed or ready. Confirming again changes nothing.
func (r *Service) ConfirmMyParticipation(ctx context.Context, contactID string) (*model.SpeakerContact, error) {
	return r.answerParticipation(ctx, contactID, true)
}

// DeclineMyParticipation records that the caller does not take part: the workflow status
// becomes declined; confirmedAt, when set, is kept (it is never cleared).
func (r *Service) DeclineMyParticipation(ctx context.Context, contactID string) (*model.SpeakerContact, error) {
	return r.answerParticipation(ctx, contactID, false)
}

// participationAnswer is the workflow status a speaker's answer leads to from now.
func participationAnswer(now contact.WorkflowStatus, confirm bool) contact.WorkflowStatus {
	switch {
	case !confirm:
		return contact.WorkflowStatusDeclined
	case now == contact.WorkflowStatusConfirmed || now == contact.WorkflowStatusReady:
		return now
	default:
		return contact.WorkflowStatusConfirmed
	}
}

func (r *Service) answerParticipation(ctx context.Context, contactID string, confirm bool) (*model.SpeakerContact, error) {
	var out *ent.Contact
	err := r.OnMine(ctx, contactID, errSpeakerContactNotFound,
		func(ctx context.Context, ct *ent.Contact) error {
			if ct.ID != contactID {
				return &ent.NotFoundError{}
			}
			return nil
		},
		func(ctx context.Context, ct *ent.Contact) error {
			c := r.ClientOf(ctx)
			// The contact's row is locked: two answers at once are applied one after the other.
			ct, err := c.Contact.Query().Where(contact.ID(ct.ID)).ForUpdate().Only(ctx)
			if err != nil {
				return err
			}
			active, err := c.Submission.Query().Where(mySessionPredicates(ct)...).Exist(ctx)
			if err != nil {
				return err
			}
			if !active {
				return errNoActiveSession
			}
			next := participationAnswer(ct.WorkflowStatus, confirm)
			if next == ct.WorkflowStatus {
				out = ct
				return nil
			}
			if out, err = r.SetSpeakerWorkflow(ctx, ct.EventID, ct.ID, model.SetSpeakerWorkflowInput{Status: next}); err != nil {
				return err
			}
			if next == contact.WorkflowStatusDeclined {
				return r.tellDeclined(ctx, out)
			}
			return nil
		})
	if err != nil {
		return nil, err
	}
	return toSpeakerContact(out), nil
}

// SetMyTaskDone marks one of the caller's tasks (the session's own or theirs, on an accepted,
// uncancelled session of theirs) done or back to do. A task the organizers waived stays waived.
func (r *Service) SetMyTaskDone(ctx context.Context, id string, done bool) (*model.Task, error) {
	var a *ent.TaskAssignment
	var out *model.Task
	err := r.OnMine(ctx, id, errMyTaskNotFound,
		func(ctx context.Context, ct *ent.Contact) (err error) {
			a, err = r.ClientOf(ctx).TaskAssignment.Query().Where(taskassignment.ID(id),
				taskassignment.Or(taskassignment.ContactIDIsNil(), taskassignment.ContactID(ct.ID)),
				taskassignment.HasSubmissionWith(mySessionPredicates(ct)...)).Only(ctx)
			return err
		},
		func(ctx context.Context, ct *ent.Contact) (err error) {
			if a.Status == taskassignment.StatusWaived {
				return errTaskWaived
			}
			status := model.TaskStatusTodo
			if done {
				status = model.TaskStatusDone
			}
			out, err = r.SetTaskStatus(ctx, ct.EventID, a.SubmissionID, a.ID, model.SetTaskStatusInput{Status: status})
			return err
		})
	return out, err
}

// UploadMyDeliverable stores up as the file of one of the caller's deliverables (the session's
// or theirs, on an accepted, uncancelled session of theirs), replacing any earlier one; the
// requirement's types and size limit apply. Like every upload it runs inside files.Track.
func (r *Service) UploadMyDeliverable(ctx context.Context, id string, up files.Upload) (*model.Deliverable, error) {
	return r.setMyDeliverable(ctx, id, &up)
}

// RemoveMyDeliverable removes the file of one of the caller's deliverables.
func (r *Service) RemoveMyDeliverable(ctx context.Context, id string) (*model.Deliverable, error) {
	return r.setMyDeliverable(ctx, id, nil)
}

func (r *Service) setMyDeliverable(ctx context.Context, id string, up *files.Upload) (*model.Deliverable, error) {
	var d *ent.DeliverableAssignment
	var out *model.Deliverable
	err := r.OnMine(ctx, id, ErrMyDeliverableNotFound,
		func(ctx context.Context, ct *ent.Contact) (err error) {
			d, err = r.MyDeliverable(ctx, ct, id)
			return err
		},
		func(ctx context.Context, ct *ent.Contact) (err error) {
			if up == nil {
				out, err = r.RemoveDeliverable(ctx, ct.EventID, d.SubmissionID, d.ID)
			} else {
				out, err = r.UploadDeliverable(ctx, ct.EventID, d.SubmissionID, d.ID, *up)
			}
			return err
		})
	return out, err
}

// tellDeclined tells the organizers, in the transaction of ctx, that the speaker ct declined
// taking part: a line on the timeline of each of their accepted, uncancelled sessions, and an
// email to the organization's owners and admins (the page promises the speaker both).
func (r *Service) tellDeclined(ctx context.Context, ct *ent.Contact) error {
	c := r.ClientOf(ctx)
	subs, err := c.Submission.Query().Where(mySessionPredicates(ct)...).
		Order(ent.Asc(submission.FieldNumber), ent.Asc(submission.FieldID)).All(ctx)
	if err != nil {
		return err
	}
	ids, titles := make([]string, len(subs)), make([]string, len(subs))
	for i, s := range subs {
		ids[i], titles[i] = s.ID, strconv.Quote(s.Title)
	}
	name := fullName(ct.FirstName, ct.LastName)
	if err := record(ctx, c, timelineentry.KindSpeakerDeclined, "Speaker declined taking part", &name, ids...); err != nil {
		return err
	}
	return r.tellOrganizers(ctx, ct.EventID, email.SpeakerDeclined, email.Data{Message: name,
		SessionTitle: strings.Join(titles, ", ")})
}

// tellOrganizers queues, in the transaction of ctx, the email template to each owner and admin of
// the organization of eventID, logged under the event; data is completed with the event's name,
// the recipient's first name and a link to their home.
func (r *Service) tellOrganizers(ctx context.Context, eventID, template string, data email.Data) error {
	ev, err := r.ClientOf(ctx).Event.Get(ctx, eventID)
	if err != nil {
		return err
	}
	data.Path = "/me"
	return r.emailOrganizers(ctx, ev, template, data)
}

// emailOrganizers queues, in the transaction of ctx, the email template to each owner and admin of
// ev's organization, logged under ev; data is completed with the event's name and the
// recipient's first name.
func (r *Service) emailOrganizers(ctx context.Context, ev *ent.Event, template string, data email.Data) error {
	members, err := r.ClientOf(ctx).OrganizationMember.Query().Where(organizationmember.OrganizationID(ev.OrganizationID),
		organizationmember.RoleIn(organizationmember.RoleOwner, organizationmember.RoleAdmin)).
		WithUser().All(ctx)
	if err != nil {
		return err
	}
	var emails []email.Email
	for _, m := range members {
		u := m.Edges.User
		if u == nil {
			continue
		}
		d := data
		d.EventName, d.FirstName = ev.Name, firstNameOf(u.Name, u.Email)
		emails = append(emails, email.Email{EventID: ev.ID, Type: emaillog.TypeCustom, To: u.Email, Template: template, Data: d})
	}
	if len(emails) == 0 {
		return nil
	}
	_, err = r.Outbox.Queue(ctx, emails...)
	return err
}

// MyDeliverable is the deliverable id of a session of ct's, asked of them or of every speaker of
// the session (not found otherwise).
func (r *Service) MyDeliverable(ctx context.Context, ct *ent.Contact, id string) (*ent.DeliverableAssignment, error) {
	return r.ClientOf(ctx).DeliverableAssignment.Query().Where(deliverableassignment.ID(id),
		deliverableassignment.Or(deliverableassignment.ContactIDIsNil(), deliverableassignment.ContactID(ct.ID)),
		deliverableassignment.HasSubmissionWith(mySessionPredicates(ct)...)).Only(ctx)
}

// firstNameOf is the first word of a user's name, else the local part of their address.
func firstNameOf(name, addr string) string {
	if f := strings.Fields(name); len(f) > 0 {
		return f[0]
	}
	return strings.SplitN(addr, "@", 2)[0]
}
