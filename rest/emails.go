package rest

import (
	"context"
	"slices"
	"strings"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/emaillog"
	"github.com/podium/podium/graph/apperr"
	"github.com/podium/podium/graph/operation"
	"github.com/podium/podium/graph/scalar"
)

// The emails an event sent (docs/rest-api.md §4 "Emails").

func (a *API) listEmails(ctx context.Context, q *request) (any, error) {
	ev, err := a.event(ctx, q)
	if err != nil {
		return nil, err
	}
	where := &ent.EmailLogWhereInput{}
	if s := q.URL.Query().Get("status"); s != "" {
		if !slices.Contains(emailStatuses, s) {
			return nil, apperr.Invalid("status must be one of %s", strings.Join(emailStatuses, ", "))
		}
		where.Status = new(emaillog.Status(s))
	}
	if s := q.URL.Query().Get("type"); s != "" {
		if !slices.Contains(emailTypes, s) {
			return nil, apperr.Invalid("type must be one of %s", strings.Join(emailTypes, ", "))
		}
		where.Type = new(emaillog.Type(s))
	}
	conn, err := a.ops.Emails(ctx, ev, operation.Page{}, nil, where)
	if err != nil {
		return nil, err
	}
	return mapSlice(conn.Edges, func(e *ent.EmailLogEdge) EmailLog { return toRESTEmailLog(e.Node) }), nil
}

// EmailLog is one email the event sent (docs/rest-api.md §4 Emails).
type EmailLog struct {
	ID           string  `json:"id"`
	CreatedAt    string  `json:"createdAt"`
	UpdatedAt    string  `json:"updatedAt"`
	EventID      string  `json:"eventId"`
	ContactID    *string `json:"contactId"`
	SubmissionID *string `json:"submissionId"`
	Type         string  `json:"type" enum:"confirmation,magic_link,accepted,declined,cancelled,reinstated,task_reminder,calendar_invite,custom"`
	Recipient    string  `json:"recipient"`
	Subject      string  `json:"subject"`
	Body         string  `json:"body"`
	HTMLBody     string  `json:"htmlBody"`
	IcsAttached  bool    `json:"icsAttached"`
	IcsContent   *string `json:"icsContent"`
	IcsSequence  *int    `json:"icsSequence"`
	Status       string  `json:"status" enum:"queued,sending,sent,failed"`
	Provider     *string `json:"provider"`
	ProviderID   *string `json:"providerId"`
	Error        *string `json:"error"`
	SentAt       *string `json:"sentAt"`
}

func toRESTEmailLog(e *ent.EmailLog) EmailLog {
	return EmailLog{
		ID: e.ID, CreatedAt: scalar.FormatTime(e.CreatedAt), UpdatedAt: scalar.FormatTime(e.UpdatedAt),
		EventID: e.EventID, ContactID: e.ContactID, SubmissionID: e.SubmissionID, Type: string(e.Type),
		Recipient: e.Recipient, Subject: e.Subject, Body: e.Body, HTMLBody: e.HTMLBody,
		IcsAttached: e.IcsAttached, IcsContent: e.IcsContent, IcsSequence: e.IcsSequence,
		Status: string(e.Status), Provider: e.Provider, ProviderID: e.ProviderID, Error: e.Error,
		SentAt: scalar.FormatTimePtr(e.SentAt),
	}
}

var (
	emailStatuses = enumValues(emaillog.StatusQueued, emaillog.StatusSending, emaillog.StatusSent, emaillog.StatusFailed)
	emailTypes    = enumValues(emaillog.TypeConfirmation, emaillog.TypeMagicLink, emaillog.TypeAccepted,
		emaillog.TypeDeclined, emaillog.TypeCancelled, emaillog.TypeReinstated, emaillog.TypeTaskReminder,
		emaillog.TypeCalendarInvite, emaillog.TypeCustom)
)

// enumValues lists enum values as strings.
func enumValues[T ~string](values ...T) []string {
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = string(v)
	}
	return out
}
