package operation

import (
	"context"
	"reflect"
	"strconv"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/contact"
	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/jobs"
)

// What a SESSION_READINESS_CHANGED change's status says changed.
const (
	readinessTask         = "task"
	readinessDeliverable  = "deliverable"
	readinessConfirmation = "confirmation"
)

// changes records many changes in the transaction of ctx, in one statement whatever their number
// (jobs.EmitChanges); like change, nothing without an organization.
func (r *Service) changes(ctx context.Context, cs []jobs.NewChange) error {
	org, tx, err := recordingTx(ctx)
	if org == "" || err != nil || len(cs) == 0 {
		return err
	}
	return jobs.EmitChanges(ctx, tx, org, cs)
}

// readinessChanged records that the readiness of the session sessionID changed: what is a
// readiness* status; speakerID, when set, is the speaker whose task or deliverable it was.
func (r *Service) readinessChanged(ctx context.Context, eventID, sessionID string, speakerID *string, what string) error {
	data := map[string]string{"sessionId": sessionID, "status": what}
	if speakerID != nil && *speakerID != "" {
		data["speakerId"] = *speakerID
	}
	return r.change(ctx, changeSessionReadiness, eventID, data)
}

// answersConfirmation tells whether a speaker's workflow change from ct's to status is an answer
// to the confirmation their sessions' readiness counts: confirmed (or confirmedAt stamped), or
// declined.
func answersConfirmation(ct *ent.Contact, status contact.WorkflowStatus) bool {
	if status == ct.WorkflowStatus {
		return false
	}
	return status == contact.WorkflowStatusConfirmed || status == contact.WorkflowStatusDeclined || stampConfirmed(ct, status)
}

// confirmationChanged records a readiness change (confirmation) of each accepted, uncancelled
// session of the speaker ct: one read, one write.
func (r *Service) confirmationChanged(ctx context.Context, ct *ent.Contact) error {
	if viewer.OrganizationID(ctx) == "" {
		return nil
	}
	ids, err := r.ClientOf(ctx).Submission.Query().Where(mySessionPredicates(ct)...).IDs(ctx)
	if err != nil {
		return err
	}
	cs := make([]jobs.NewChange, len(ids))
	for i, id := range ids {
		cs[i] = jobs.NewChange{EventID: ct.EventID, Type: changeSessionReadiness,
			Data: map[string]string{"sessionId": id, "speakerId": ct.ID, "status": readinessConfirmation}}
	}
	return r.changes(ctx, cs)
}

// reviewData is the data of a review change of the assignment a: the reviewer as the
// assignment's event member id, which myReviewChanges matches.
func reviewData(a *ent.ReviewAssignment) map[string]string {
	return map[string]string{"assignmentId": a.ID, "roundId": a.RoundID, "submissionId": a.SubmissionID,
		"reviewerId": a.EventMemberID}
}

// assignedChanges are the review.assigned changes of assignments made at once in the round
// roundID: one per reviewer, naming the assignment when it is one and counting them otherwise,
// so that a bulk assignment or an auto-distribution of thousands hands subscribers a change per
// reviewer, not per assignment.
func assignedChanges(eventID, roundID string, created []*ent.ReviewAssignment) []jobs.NewChange {
	var reviewers []string
	byReviewer := map[string][]*ent.ReviewAssignment{}
	for _, a := range created {
		if _, ok := byReviewer[a.EventMemberID]; !ok {
			reviewers = append(reviewers, a.EventMemberID)
		}
		byReviewer[a.EventMemberID] = append(byReviewer[a.EventMemberID], a)
	}
	out := make([]jobs.NewChange, len(reviewers))
	for i, m := range reviewers {
		data := map[string]string{"roundId": roundID, "reviewerId": m, "count": strconv.Itoa(len(byReviewer[m]))}
		if as := byReviewer[m]; len(as) == 1 {
			data = reviewData(as[0])
		}
		out[i] = jobs.NewChange{EventID: eventID, Type: changeReviewAssigned, Data: data}
	}
	return out
}

// agendaChanged records that the agenda drafts of the event eventID changed: a draft started,
// generated or failed, duplicated, discarded or accepted. Sessions placed on or taken off the
// live schedule record session.scheduled instead (moveSession). No status: a draft's conflicts
// are not known without reading the agenda.
func (r *Service) agendaChanged(ctx context.Context, eventID string) error {
	return r.change(ctx, changeAgenda, eventID, nil)
}

// hookString is a webhook data value as a change's string: a string, or a value of a string type
// (an enum such as contact.WorkflowStatus or model.SessionCancelledBy), through a pointer too; ""
// for anything else.
func hookString(v any) string {
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer && !rv.IsNil() {
		rv = rv.Elem()
	}
	if rv.Kind() == reflect.String {
		return rv.String()
	}
	return ""
}
