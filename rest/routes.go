package rest

import (
	"context"
	"net/http"
)

// routes is the REST API under /api/v1, one operation per line: method, path, operation id,
// handler, the GraphQL input type its body is checked against and bound to ("" for no body),
// success status, flags. The router serves exactly this list and the OpenAPI document describes
// it, in the words of routeDocs (routes_doc.go). Each handler is named after its operation and
// lives in the file of its domain.
var routes = []route{
	// events.go
	{"GET", "/organization", "getOrganization", (*API).getOrganization, "", 200, 0},
	{"GET", "/events", "listEvents", (*API).listEvents, "", 200, 0},
	{"POST", "/events", "createEvent", (*API).createEvent, "CreateEventInput", 201, 0},
	{"GET", "/events/{eventId}", "getEvent", (*API).getEvent, "", 200, 0},
	{"PATCH", "/events/{eventId}", "updateEvent", (*API).updateEvent, "UpdateEventInput", 200, 0},
	{"GET", "/events/{eventId}/library", "getEventLibrary", (*API).getEventLibrary, "", 200, 0},
	{"POST", "/events/{eventId}/library", "saveLibraryItem", (*API).saveLibraryItem, "SaveLibraryItemInput", 200, 0},
	{"DELETE", "/events/{eventId}/library/{kind}/{itemId}", "deleteLibraryItem", (*API).deleteLibraryItem, "", 204, 0},

	// speakers.go
	{"GET", "/events/{eventId}/speakers", "listSpeakers", (*API).listSpeakers, "", 200, 0},
	{"POST", "/events/{eventId}/speakers", "saveSpeaker", (*API).saveSpeaker, "SaveSpeakerInput", 201, 0},
	{"GET", "/events/{eventId}/speakers/{contactId}", "getSpeaker", (*API).getSpeaker, "", 200, 0},
	{"PATCH", "/events/{eventId}/speakers/{contactId}/workflow", "setSpeakerWorkflow", (*API).setSpeakerWorkflow, "SetSpeakerWorkflowInput", 200, 0},
	{"POST", "/events/{eventId}/speakers/import", "importSpeakers", (*API).importSpeakers, "ImportSpeakersInput", 200, 0},
	{"POST", "/events/{eventId}/speakers/invite", "inviteSpeakerPortals", (*API).inviteSpeakerPortals, "InviteSpeakerPortalsInput", 200, 0},

	// availability.go
	{"GET", "/events/{eventId}/speakers/{contactId}/availability", "getSpeakerAvailability", (*API).getSpeakerAvailability, "", 200, 0},
	{"PUT", "/events/{eventId}/speakers/{contactId}/availability", "setSpeakerAvailability", (*API).setSpeakerAvailability, "SpeakerAvailabilityInput", 200, 0},

	// submissions.go
	{"GET", "/events/{eventId}/submissions", "listSubmissions", (*API).listSubmissions, "", 200, 0},
	{"POST", "/events/{eventId}/submissions", "createSubmission", (*API).createSubmission, "CreateSubmissionInput", 201, 0},
	{"GET", "/events/{eventId}/submissions/{submissionId}", "getSubmission", (*API).getSubmission, "", 200, 0},
	{"PATCH", "/events/{eventId}/submissions/{submissionId}", "changeSubmissionStatus", (*API).changeSubmissionStatus, "ChangeSubmissionStatusInput", 200, 0},
	{"POST", "/events/{eventId}/submissions/decide", "decideSubmissions", (*API).decideSubmissions, "DecideSubmissionsInput", 200, 0},
	{"POST", "/events/{eventId}/submissions/inform", "informSubmissions", (*API).informSubmissions, "InformSubmissionsInput", 200, 0},
	{"PUT", "/events/{eventId}/submissions/{submissionId}/review", "saveMyReview", (*API).saveMyReview, "SaveMyReviewInput", 200, 0},

	// sessions.go
	{"GET", "/events/{eventId}/sessions", "listSessions", (*API).listSessions, "", 200, 0},
	{"POST", "/events/{eventId}/sessions", "createSession", (*API).createSession, "CreateSessionInput", 201, 0},
	{"DELETE", "/events/{eventId}/sessions/{submissionId}", "deleteSession", (*API).deleteSession, "", 204, 0},
	{"POST", "/events/{eventId}/sessions/{submissionId}/cancel", "cancelSession", (*API).cancelSession, "CancelSessionInput", 200, 0},
	{"POST", "/events/{eventId}/sessions/{submissionId}/reinstate", "reinstateSession", (*API).reinstateSession, "ReinstateSessionInput", 200, 0},
	{"GET", "/events/{eventId}/sessions/{submissionId}/timeline", "getSessionTimeline", (*API).getSessionTimeline, "", 200, 0},
	{"PUT", "/events/{eventId}/sessions/{submissionId}/speakers", "setSessionSpeakers", (*API).setSessionSpeakers, "SetSessionSpeakersInput", 200, 0},

	// readiness.go
	{"GET", "/events/{eventId}/task-templates", "listTaskTemplates", (*API).listTaskTemplates, "", 200, 0},
	{"POST", "/events/{eventId}/task-templates", "saveTaskTemplate", (*API).saveTaskTemplate, "SaveTaskTemplateInput", 200, 0},
	{"DELETE", "/events/{eventId}/task-templates/{templateId}", "deleteTaskTemplate", (*API).deleteTaskTemplate, "", 204, 0},
	{"GET", "/events/{eventId}/file-requirements", "listFileRequirements", (*API).listFileRequirements, "", 200, 0},
	{"POST", "/events/{eventId}/file-requirements", "saveFileRequirement", (*API).saveFileRequirement, "SaveFileRequirementInput", 200, 0},
	{"DELETE", "/events/{eventId}/file-requirements/{requirementId}", "deleteFileRequirement", (*API).deleteFileRequirement, "", 204, 0},
	{"GET", "/events/{eventId}/sessions/{submissionId}/tasks", "listSessionTasks", (*API).listSessionTasks, "", 200, 0},
	{"PATCH", "/events/{eventId}/sessions/{submissionId}/tasks/{taskId}", "setTaskStatus", (*API).setTaskStatus, "SetTaskStatusInput", 200, 0},
	{"GET", "/events/{eventId}/sessions/{submissionId}/deliverables", "listSessionDeliverables", (*API).listSessionDeliverables, "", 200, 0},
	{"PUT", "/events/{eventId}/sessions/{submissionId}/deliverables/{deliverableId}", "recordDeliverableUpload", (*API).recordDeliverableUpload, "RecordDeliverableUploadInput", 200, 0},
	{"DELETE", "/events/{eventId}/sessions/{submissionId}/deliverables/{deliverableId}", "clearDeliverableUpload", (*API).clearDeliverableUpload, "", 200, 0},

	// reviews.go
	{"GET", "/events/{eventId}/evaluation", "getEvaluation", (*API).getEvaluation, "", 200, 0},
	{"POST", "/events/{eventId}/review-rounds", "saveReviewRound", (*API).saveReviewRound, "SaveReviewRoundInput", 200, 0},
	{"POST", "/events/{eventId}/review-rounds/{roundId}/members", "addReviewer", (*API).addReviewer, "AddReviewerInput", 201, 0},
	{"POST", "/events/{eventId}/review-rounds/{roundId}/assignments", "assignReviews", (*API).assignReviews, "AssignReviewsInput", 200, 0},
	{"DELETE", "/events/{eventId}/review-rounds/{roundId}/assignments/{assignmentId}", "unassignReview", (*API).unassignReview, "", 204, 0},
	{"POST", "/events/{eventId}/review-rounds/{roundId}/auto-distribute", "autoDistributeReviews", (*API).autoDistributeReviews, "AutoDistributeReviewsInput", 200, 0},
	{"POST", "/events/{eventId}/review-rounds/{roundId}/reminders", "sendReviewReminders", (*API).sendReviewReminders, "SendReviewRemindersInput", 200, 0},
	{"POST", "/events/{eventId}/review-rounds/{roundId}/ai-review", "generateAiReview", (*API).generateAiReview, "GenerateAiReviewInput", 200, 0},
	{"POST", "/events/{eventId}/review-rounds/{roundId}/ai-scoring", "scoreRoundWithAi", (*API).scoreRoundWithAi, "ScoreRoundWithAiInput", 200, 0},
	{"POST", "/events/{eventId}/ai-review-override", "overrideAiReview", (*API).overrideAiReview, "OverrideAiReviewInput", 200, 0},
	{"GET", "/events/{eventId}/reviewer-tracks", "listReviewerTracks", (*API).listReviewerTracks, "", 200, 0},
	{"PUT", "/events/{eventId}/reviewer-tracks/{eventMemberId}", "setReviewerTracks", (*API).setReviewerTracks, "SetReviewerTracksInput", 200, 0},
	{"POST", "/events/{eventId}/review-assignments/{assignmentId}/answers", "submitReviewAnswers", (*API).submitReviewAnswers, "SubmitReviewAnswersInput", 200, 0},
	{"POST", "/events/{eventId}/review-assignments/{assignmentId}/recuse", "recuseReview", (*API).recuseReview, "RecuseReviewInput", 200, 0},
	{"GET", "/events/{eventId}/my-reviews", "getMyReviews", (*API).getMyReviews, "", 200, 0},

	// resources.go
	{"GET", "/events/{eventId}/resources", "listResources", (*API).listResources, "", 200, 0},
	{"POST", "/events/{eventId}/resources", "createResource", (*API).createResource, "ResourceInput", 201, 0},
	{"PATCH", "/events/{eventId}/resources/{resourceId}", "updateResource", (*API).updateResource, "ResourceInput", 200, 0},
	{"DELETE", "/events/{eventId}/resources/{resourceId}", "deleteResource", (*API).deleteResource, "", 204, 0},
	{"POST", "/events/{eventId}/resources/reorder", "reorderResources", (*API).reorderResources, "ReorderResourcesInput", 204, 0},
	{"GET", "/events/{eventId}/files/{fileId}", "downloadFile", (*API).downloadFile, "", 200, 0}, // files.go

	// agenda.go
	{"GET", "/events/{eventId}/agenda", "getAgenda", (*API).getAgenda, "", 200, 0},
	{"PUT", "/events/{eventId}/agenda/schedule", "scheduleSession", (*API).scheduleSession, "ScheduleSessionInput", 200, 0},
	{"POST", "/events/{eventId}/agenda/publish", "publishAgenda", (*API).publishAgenda, "", 200, 0},
	{"POST", "/events/{eventId}/agenda/unpublish", "unpublishAgenda", (*API).unpublishAgenda, "", 200, 0},
	{"POST", "/events/{eventId}/agenda/invites", "sendCalendarInvites", (*API).sendCalendarInvites, "SendCalendarInvitesInput", 200, optionalBody},
	{"GET", "/public/events/{eventId}/agenda.json", "getPublicAgenda", (*API).getPublicAgenda, "", 200, public},
	{"GET", "/public/events/{eventId}/agenda.ics", "getPublicAgendaCalendar", (*API).getPublicAgendaCalendar, "", 200, public},

	// agenda_blocks.go
	{"PUT", "/events/{eventId}/agenda/blocks", "saveAgendaBlock", (*API).saveAgendaBlock, "SaveAgendaBlockInput", 200, 0},
	{"DELETE", "/events/{eventId}/agenda/blocks/{blockId}", "deleteAgendaBlock", (*API).deleteAgendaBlock, "", 200, 0},
	// agenda_versions.go
	{"GET", "/events/{eventId}/agenda/versions", "listAgendaVersions", (*API).listAgendaVersions, "", 200, 0},
	{"GET", "/events/{eventId}/agenda/versions/{number}", "getAgendaVersion", (*API).getAgendaVersion, "", 200, 0},
	{"GET", "/public/events/{eventId}/agenda/changes.json", "getPublicAgendaChanges", (*API).getPublicAgendaChanges, "", 200, public},
	// agenda_exports.go
	{"GET", "/public/events/{eventId}/schedule.json", "getScheduleJSON", (*API).getScheduleJSON, "", 200, public},
	{"GET", "/public/events/{eventId}/schedule.xml", "getScheduleXML", (*API).getScheduleXML, "", 200, public},
	{"POST", "/public/widgets/{widgetId}/calendars", "createPersonalCalendar", (*API).createPersonalCalendar, "CreatePersonalCalendarInput", 201, public},
	{"GET", "/public/calendars/{token}.ics", "getPersonalCalendar", (*API).getPersonalCalendar, "", 200, public},

	// emails.go
	{"GET", "/events/{eventId}/emails", "listEmails", (*API).listEmails, "", 200, 0},

	// webhooks.go
	{"GET", "/webhooks/event-types", "listWebhookEventTypes", (*API).listWebhookEventTypes, "", 200, 0},
	{"GET", "/webhooks", "listWebhooks", (*API).listWebhooks, "", 200, 0},
	{"POST", "/webhooks", "createWebhook", (*API).createWebhook, "CreateWebhookInput", 201, shownOnce},
	{"GET", "/webhooks/{webhookId}", "getWebhook", (*API).getWebhook, "", 200, 0},
	{"PATCH", "/webhooks/{webhookId}", "updateWebhook", (*API).updateWebhook, "UpdateWebhookInput", 200, 0},
	{"DELETE", "/webhooks/{webhookId}", "deleteWebhook", (*API).deleteWebhook, "", 204, 0},
	{"POST", "/webhooks/{webhookId}/rotate-secret", "rotateWebhookSecret", (*API).rotateWebhookSecret, "RotateWebhookSecretInput", 200, optionalBody | shownOnce},
	{"GET", "/webhooks/{webhookId}/deliveries", "listWebhookDeliveries", (*API).listWebhookDeliveries, "", 200, 0},
	{"POST", "/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver", "redeliverWebhook", (*API).redeliverWebhook, "", 200, 0},
	{"POST", "/webhooks/{webhookId}/redeliver", "redeliverWebhooks", (*API).redeliverWebhooks, "RedeliverWebhooksInput", 200, 0},

	// api_keys.go (Podium's own: the original API has no key routes)
	{"GET", "/api-keys", "listApiKeys", (*API).listApiKeys, "", 200, 0},
	{"POST", "/api-keys", "createApiKey", (*API).createApiKey, "CreateApiKeyInput", 201, shownOnce},
	{"DELETE", "/api-keys/{keyId}", "revokeApiKey", (*API).revokeApiKey, "", 200, 0},
	{"POST", "/api-keys/{keyId}/rotate", "rotateApiKey", (*API).rotateApiKey, "RotateApiKeyInput", 201, optionalBody | shownOnce},

	// campaigns.go
	{"GET", "/events/{eventId}/communications", "getCommunications", (*API).getCommunications, "", 200, 0},
	{"POST", "/events/{eventId}/campaigns", "sendCampaign", (*API).sendCampaign, "SendCampaignInput", 201, 0},

	// crm.go
	{"GET", "/contacts", "listContacts", (*API).listContacts, "", 200, 0},
	{"POST", "/contacts", "createContact", (*API).createContact, "ContactInput", 201, 0},
	{"POST", "/contacts/import", "importContacts", (*API).importContacts, "ImportContactsInput", 200, 0},
	{"POST", "/contacts/merge", "mergeContacts", (*API).mergeContacts, "MergeContactsInput", 200, 0},
	{"GET", "/contacts/{contactId}", "getContact", (*API).getContact, "", 200, 0},
	{"PATCH", "/contacts/{contactId}", "updateContact", (*API).updateContact, "ContactInput", 200, 0},
	{"POST", "/contacts/{contactId}/tags", "addContactTag", (*API).addContactTag, "AddContactTagInput", 201, 0},
	{"DELETE", "/contacts/{contactId}/tags/{tagId}", "removeContactTag", (*API).removeContactTag, "", 204, 0},
	{"POST", "/contacts/{contactId}/notes", "addContactNote", (*API).addContactNote, "AddContactNoteInput", 201, 0},
	{"POST", "/contacts/{contactId}/events", "addContactToEvent", (*API).addContactToEvent, "AddContactToEventInput", 201, 0},

	// pipeline.go
	{"GET", "/pipeline", "getPipeline", (*API).getPipeline, "", 200, 0},
	{"POST", "/pipeline/stages", "savePipelineStage", (*API).savePipelineStage, "SavePipelineStageInput", 200, 0},
	{"PUT", "/pipeline/stages/order", "reorderPipelineStages", (*API).reorderPipelineStages, "ReorderPipelineStagesInput", 200, 0},
	{"DELETE", "/pipeline/stages/{stageId}", "deletePipelineStage", (*API).deletePipelineStage, "", 204, 0},
	{"POST", "/pipeline/cards", "addPipelineCard", (*API).addPipelineCard, "AddPipelineCardInput", 201, 0},
	{"POST", "/pipeline/cards/{cardId}/move", "movePipelineCard", (*API).movePipelineCard, "MovePipelineCardInput", 200, 0},

	// segments.go
	{"GET", "/segments", "listSegments", (*API).listSegments, "", 200, 0},
	{"POST", "/segments", "saveSegment", (*API).saveSegment, "SaveSegmentInput", 201, 0},
	{"GET", "/segments/{segmentId}/contacts", "listSegmentContacts", (*API).listSegmentContacts, "", 200, 0},

	// agenda_drafts.go
	{"GET", "/events/{eventId}/agenda/drafts", "listAgendaDrafts", (*API).listAgendaDrafts, "", 200, 0},
	{"POST", "/events/{eventId}/agenda/drafts", "generateAgendaDraft", (*API).generateAgendaDraft, "GenerateAgendaDraftInput", 201, 0},
	{"POST", "/events/{eventId}/agenda/drafts/{draftId}", "changeAgendaDraft", (*API).changeAgendaDraft, "ChangeAgendaDraftInput", 200, 0},
	{"POST", "/events/{eventId}/agenda/drafts/{draftId}/accept", "acceptAgendaDraft", (*API).acceptAgendaDraft, "AcceptAgendaDraftInput", 200, 0},

	// widgets.go (docs/widgets.md; the public pages and feeds are embed.go's, outside /api/v1)
	{"GET", "/events/{eventId}/program", "getProgram", (*API).getProgram, "", 200, 0},
	{"GET", "/events/{eventId}/widgets", "listWidgets", (*API).listWidgets, "", 200, 0},
	{"POST", "/events/{eventId}/widgets", "createWidget", (*API).createWidget, "CreateWidgetInput", 201, 0},
	{"PATCH", "/events/{eventId}/widgets/{widgetId}", "updateWidget", (*API).updateWidget, "UpdateWidgetInput", 200, 0},
}

// route is one line of the table above.
type route struct {
	method, path, operationID string
	handle                    handler
	// input is the GraphQL input type the body must match and bind binds it to; "" for no body.
	input string
	// status answers success; with 204 the handler's result is dropped.
	status int
	flags  routeFlag
}

// handler is a named operation, e.g. (*API).listEvents: translate the request, call the resolver
// GraphQL calls, return the REST body. Writes run inside the request's transaction.
type handler func(a *API, ctx context.Context, q *request) (any, error)

// routeFlag marks a route that departs from the defaults: an API key is required, and so is the
// body of a route with an input.
type routeFlag uint8

const (
	// public routes need no API key: they serve published data only.
	public routeFlag = 1 << iota
	// optionalBody lets a body whose keys are all optional be left out entirely.
	optionalBody
	// shownOnce marks a write whose answer holds a secret shown this once (a new API key, a webhook
	// endpoint's signing secret): its answer is never stored, so Idempotency-Key is not honoured
	// and a retry makes another.
	shownOnce
)

func (rt *route) public() bool       { return rt.flags&public != 0 }
func (rt *route) optionalBody() bool { return rt.flags&optionalBody != 0 }
func (rt *route) shownOnce() bool    { return rt.flags&shownOnce != 0 }

// isWrite tells writes, which run in a transaction and honour Idempotency-Key, from reads.
func (rt *route) isWrite() bool { return rt.method != http.MethodGet }
