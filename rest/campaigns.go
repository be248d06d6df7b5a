package rest

import (
	"context"

	"github.com/podium/podium/graph/model"
	"github.com/podium/podium/graph/scalar"
)

// Campaigns and the communications view (docs/campaigns.md; docs/rest-api.md §4 "Campaigns").
// Both shapes are the operation layer's read models, which encode as the contract's JSON.

func (a *API) getCommunications(ctx context.Context, q *request) (any, error) {
	center, err := a.ops.Communications(ctx, q.param("eventId"))
	if err != nil || !current(ctx) {
		return center, err
	}
	eventID := q.param("eventId")
	people, err := a.ops.CommunicationPeople(ctx, eventID)
	if err != nil {
		return nil, err
	}
	mail, err := a.ops.EventMailStatus(ctx, eventID)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(center.Contacts))
	for i, c := range center.Contacts {
		ids[i] = c.ID
	}
	pipelines, err := a.ops.SpeakerPipelines(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := CommunicationsCurrent{EventName: center.EventName, EventSlug: center.EventSlug,
		Speakers: make([]CommunicationSpeaker, len(center.Contacts)), Submitters: people.Submitters,
		Templates: center.Templates, Campaigns: center.Campaigns, ReminderRules: center.ReminderRules,
		Pending: PendingMail{AcceptedNotInformed: center.AcceptedNotInformed, DeclinedNotInformed: center.DeclinedNotInformed,
			AwaitingConfirmation: people.AwaitingConfirmation, Queued: mail.Queued, Sending: mail.Sending,
			Failed: people.Failed, SentTotal: people.SentTotal, DueSoonTasks: people.DueSoonTasks}}
	for i, c := range center.Contacts {
		out.Speakers[i] = CommunicationSpeaker{ID: c.ID, Email: c.Email, FirstName: c.FirstName, LastName: c.LastName,
			HeadshotURL: c.HeadshotURL, Title: c.Title, Company: c.Company, Pipeline: pipelineName(pipelines[c.ID]),
			ConfirmedAt: people.ConfirmedAt[c.ID], DecisionInformed: !people.Uninformed[c.ID], TaskTotal: c.TaskTotal,
			TaskDone: c.TaskDone, TaskIncomplete: c.TaskIncomplete, TalkTitle: c.TalkTitle}
	}
	return out, nil
}

// CommunicationsCurrent is GET E/communications in API version 2026-08-21: speakers with their
// derived pipeline, the people who proposed, and the mail still to do.
type CommunicationsCurrent struct {
	EventName     string                   `json:"eventName"`
	EventSlug     string                   `json:"eventSlug"`
	Speakers      []CommunicationSpeaker   `json:"speakers"`
	Submitters    []*model.Submitter       `json:"submitters"`
	Pending       PendingMail              `json:"pending"`
	Templates     []*model.EmailTemplate   `json:"templates"`
	Campaigns     []*model.CampaignHistory `json:"campaigns"`
	ReminderRules []*model.ReminderRule    `json:"reminderRules"`
}

// CommunicationSpeaker is a speaker of the communications view in API version 2026-08-21.
// decisionInformed is false while an accepted or declined submission of theirs awaits its
// decision email.
type CommunicationSpeaker struct {
	ID               string            `json:"id"`
	Email            string            `json:"email"`
	FirstName        string            `json:"firstName"`
	LastName         string            `json:"lastName"`
	HeadshotURL      *string           `json:"headshotUrl"`
	Title            *string           `json:"title"`
	Company          *string           `json:"company"`
	Pipeline         string            `json:"pipeline" enum:"withdrawn,ready,onboarding,invited,added"`
	ConfirmedAt      *scalar.Timestamp `json:"confirmedAt"`
	DecisionInformed bool              `json:"decisionInformed"`
	TaskTotal        int               `json:"taskTotal"`
	TaskDone         int               `json:"taskDone"`
	TaskIncomplete   int               `json:"taskIncomplete"`
	TalkTitle        string            `json:"talkTitle"`
}

// PendingMail is what the communications view counts as still to do or done: decisions not
// announced, speakers who have not confirmed, the event's emails by delivery, tasks due within
// 7 days (or overdue).
type PendingMail struct {
	AcceptedNotInformed  int `json:"acceptedNotInformed"`
	DeclinedNotInformed  int `json:"declinedNotInformed"`
	AwaitingConfirmation int `json:"awaitingConfirmation"`
	Queued               int `json:"queued"`
	Sending              int `json:"sending"`
	Failed               int `json:"failed"`
	SentTotal            int `json:"sentTotal"`
	DueSoonTasks         int `json:"dueSoonTasks"`
}

func (a *API) sendCampaign(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.SendCampaignInput](q)
	if err != nil {
		return nil, err
	}
	res, err := a.ops.SendCampaign(ctx, q.param("eventId"), in)
	if err != nil || !current(ctx) {
		return res, err
	}
	return CampaignQueued{CampaignID: res.Campaign.ID, Queued: res.Sent}, nil
}

// CampaignQueued is POST E/campaigns' answer in API version 2026-08-21: the campaign's id and
// the emails queued, one per recipient.
type CampaignQueued struct {
	CampaignID string `json:"campaignId"`
	Queued     int    `json:"queued"`
}
