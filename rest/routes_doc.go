package rest

import (
	"github.com/podium/podium/graph/model"
	"github.com/podium/podium/graph/operation"
)

// routeDocs describes each operation of the route table for the OpenAPI document, by operation
// id. The request body's schema comes from the route's GraphQL input type; the success body's
// from output, a value of the Go type the handler returns.
//
// An operation with a GraphQL counterpart takes its description from that field's SDL
// description, without its `REST:` sentence (see restFields), unless the entry has its own: give
// one only for what REST says differently or more precisely (status codes, limits, bodies).
// currentDocs override the entries of routeDocs in API version 2026-08-21 and later, for the
// operations whose behaviour or answer differs there (docs/rest-api.md "Versions"): each field
// an entry sets replaces the routeDocs one, and output is always set, to the type served there.
var currentDocs = map[string]routeDoc{
	"decideSubmissions": {
		tag:     "Submissions",
		summary: "Accept or decline submissions",
		description: "Records the decision: nothing is emailed and notifiedAt stays null until " +
			"POST /events/{eventId}/submissions/inform announces it; feedback is refused here (it goes with the " +
			"inform). An uninformed decision may be changed; declined → accepted after informing needs " +
			"confirmRedecide (409 already_decided otherwise). Acceptance assigns tasks and deliverables.",
		output: Decided{},
	},

	// speakers.go
	"listSpeakers": {
		description: "The speaker directory: every speaker with their derived pipeline, their accepted sessions and " +
			"other submissions, tasks, files and latest emails, and a CSV export.",
		output: DirectoryCurrent{},
	},
	"getSpeaker": {output: ContactCurrent{}},
	"saveSpeaker": {
		description: "id null creates a speaker, invited; an existing contact id updates that speaker and keeps " +
			"its status. The email is unique in the event. The body has no workflowStatus (the pipeline is " +
			"derived): sending one is 400 invalid_body.",
		output: ContactCurrent{},
	},
	"inviteSpeakerPortals": {output: Invited{}},

	// submissions.go, sessions.go
	"listSubmissions": {
		description: "The call-for-proposals submissions of every status, with speakers, submitter and review " +
			"figures, and the event's emails not out yet (mailStatus); status filters. Manual sessions are " +
			"listed under Sessions only.",
		output: SubmissionListCurrent{},
	},
	"getSubmission": {output: SubmissionDetailCurrent{}},
	"createSession": {output: SessionCreated{}},

	// reviews.go
	"getEvaluation":   {output: EvaluationCurrent{}},
	"saveReviewRound": {output: RoundSavedCurrent{}},

	// campaigns.go
	"getCommunications": {output: CommunicationsCurrent{}},
	"sendCampaign": {
		description: "Queues one email per recipient: the segment's people (a group of speakers or of " +
			"submitters) and contactIds; selected and selected_submitters send to contactIds only. Nobody " +
			"eligible is 400 invalid_input.",
		output: CampaignQueued{},
	},

	// agenda_drafts.go
	"listAgendaDrafts":    {output: []AgendaDraftCurrent{}},
	"generateAgendaDraft": {output: AgendaDraftCurrent{}},
	"changeAgendaDraft":   {output: AgendaDraftCurrent{}},
	"acceptAgendaDraft":   {output: AcceptedDraftCurrent{}},
}

var routeDocs = map[string]routeDoc{
	// events.go
	"getOrganization": {
		tag:         "Organization",
		summary:     "Get the organization",
		description: "The organization the API key belongs to, with its members and pending invitations.",
		output:      Organization{},
	},
	"listEvents": {
		tag:         "Events",
		summary:     "List events",
		description: "Every event of the organization, by start date.",
		output:      []Event{},
	},
	"createEvent": {
		tag:     "Events",
		summary: "Create an event",
		description: "The slug is made from the name, unique within the organization. endsAt must be after " +
			"startsAt; timezone is an IANA zone.",
		output: Event{},
	},
	"getEvent": {
		tag:         "Events",
		summary:     "Get an event",
		description: "An event of the organization; another organization's event, or an id that names none, is 403 forbidden.",
		output:      Event{},
	},
	"updateEvent": {
		tag:     "Events",
		summary: "Update an event",
		output:  Event{},
	},
	"getEventLibrary": {
		tag:     "Events",
		summary: "Get the event library",
		output:  Library{},
	},
	"saveLibraryItem": {
		tag:         "Events",
		summary:     "Create or update a library item",
		description: "id null creates an item at the end of its list; an existing id of that kind updates the item.",
		output:      oneOf{Track{}, Format{}, Room{}, LibraryItem{}},
	},
	"deleteLibraryItem": {
		tag:     "Events",
		summary: "Delete a library item",
		description: "kind is track, format, room, tag or level. An item a submission or session uses cannot be " +
			"deleted (409 resource_in_use).",
	},

	// speakers.go
	"listSpeakers": {
		tag:         "Speakers",
		summary:     "List event speakers",
		description: "The speaker directory: every speaker with their sessions, tasks, files and latest emails, and a CSV export.",
		output:      Directory{},
	},
	"saveSpeaker": {
		tag:         "Speakers",
		summary:     "Create or update a speaker",
		description: "id null creates a speaker; an existing contact id updates that speaker. The email is unique in the event.",
		output:      Contact{},
	},
	"getSpeaker": {
		tag:         "Speakers",
		summary:     "Get an event speaker",
		description: "One contact of the event; an id that names no contact of the event is 404 not_found.",
		output:      Contact{},
	},
	"setSpeakerWorkflow": {
		tag:         "Speakers",
		summary:     "Set a speaker's workflow status",
		description: "Any status from any status; confirmed and ready stamp confirmedAt the first time.",
		output:      Contact{},
	},
	"importSpeakers": {
		tag:         "Speakers",
		summary:     "Bulk import speakers",
		description: "Rows are matched by email; action create skips known emails, update skips unknown ones, skip does nothing.",
		output:      model.ImportSpeakersResult{},
	},
	"inviteSpeakerPortals": {
		tag:         "Speakers",
		summary:     "Invite speakers to their portal",
		description: "Queues a portal invitation email for each speaker contact given, once per contact ever.",
		output:      model.InviteSpeakerPortalsResult{},
	},

	// availability.go
	"getSpeakerAvailability": {
		tag:     "Speakers",
		summary: "Get a speaker's availability (ext)",
		output:  SpeakerAvailability{},
	},
	"setSpeakerAvailability": {
		tag:     "Speakers",
		summary: "Replace a speaker's availability (ext)",
		description: "Replaces every interval; an empty list makes the speaker available throughout the event. A refused " +
			"body (400 invalid_input: an interval outside the event's days, an end not after its start, a time off a " +
			"5-minute mark, more than 50 intervals) writes nothing. Overlapping or touching intervals are merged.",
		output: SpeakerAvailability{},
	},

	// submissions.go
	"listSubmissions": {
		tag:     "Submissions",
		summary: "List submissions",
		description: "The call-for-proposals submissions of every status, with speakers and review figures; status " +
			"filters. Manual sessions are listed under Sessions only.",
		query:  []queryParam{{name: "status", description: "Only submissions with this status", enum: []string{"draft", "pending", "maybe", "accepted", "declined", "withdrawn"}}},
		output: model.SubmissionList{},
	},
	"createSubmission": {
		tag:     "Submissions",
		summary: "Bring in a proposal (ext)",
		description: "For proposals from another tool: the submission comes through the event's default call for " +
			"proposals; the first speaker is the submitter. status is draft or pending (default).",
		output: model.SessionRecord{},
	},
	"getSubmission": {
		tag:         "Submissions",
		summary:     "Get a submission",
		description: "Full detail: answers, reviews, history and emails.",
		output:      SubmissionDetail{},
	},
	"changeSubmissionStatus": {
		tag:     "Submissions",
		summary: "Change a submission's status",
		description: "To pending, maybe or withdrawn. Accepting and declining go through decide; an accepted " +
			"submission is cancelled as a session instead. The same status is a no-op.",
		output: model.StatusChangeResult{},
	},
	"decideSubmissions": {
		tag:     "Submissions",
		summary: "Accept or decline submissions",
		description: "Decides and informs at once: each speaker of each submission gets a decision email, " +
			"and feedback is required (GraphQL's decideSubmissions only informs with inform: true; inform is " +
			"ignored here). Declined → accepted needs " +
			"confirmRedecide (409 already_decided otherwise). Acceptance assigns tasks and deliverables.",
		output: model.DecisionResult{},
	},
	"getMyReviews": {
		tag:     "Reviews",
		summary: "My review queue",
		description: "The caller's review queue in the event, by round: each assignment with the submission as " +
			"reviewers see it (a blind round shows \"Speaker n\" and redacts names from the text) and the caller's " +
			"own answers. Only a reviewer of the event has one: a person signed in through an application they " +
			"authorized (docs/agents.md); an API key, and an organizer who is not a reviewer here, are refused " +
			"(403 forbidden). API version 2026-08-21 on.",
		output: model.MyEventReviews{},
	},
	"saveMyReview": {
		tag:     "Reviews",
		summary: "Save my quick review of a submission",
		description: "Saves the caller's quick review (decision approve|maybe|deny, score 1–5, comment) of a pending " +
			"submission, replacing theirs. An API key reviews as the person who made it; a key made on the command " +
			"line has none (403 forbidden). A reviewer of the event (a person through an application they " +
			"authorized) scores the submissions in one of the tracks they are assigned, as the original does: " +
			"another, or any for a reviewer without tracks, answers 403 forbidden. API version 2026-08-21 on.",
		output: model.QuickReview{},
	},
	"informSubmissions": {
		tag:     "Submissions",
		summary: "Queue decision emails",
		description: "Emails the decision on each submission to its speakers, once: one email per speaker per " +
			"submission, with the send's subject, feedback and Reply-To. Every submission must be decided and " +
			"not yet informed (400 invalid_input otherwise; nothing is sent). at (ext), in the future, schedules " +
			"the send instead: queued is 0 and GraphQL's Event.decisionSends lists it. API version 2026-08-21 on.",
		output: Informed{},
	},

	// sessions.go
	"listSessions": {
		tag:     "Sessions",
		summary: "List sessions",
		description: "Every accepted submission and manually added session with its readiness read model; cancelled " +
			"sessions stay listed with their cause. state=active or state=cancelled filters; tracks and formats " +
			"cover all sessions.",
		query:  []queryParam{{name: "state", description: "active or cancelled; anything else lists all", enum: []string{"active", "cancelled"}}},
		output: SessionList{},
	},
	"createSession": {
		tag:     "Sessions",
		summary: "Create a session directly",
		description: "Creates an accepted session without a call-for-proposals submission. Speakers must already be " +
			"contacts of the event (403 otherwise). No email is sent.",
		output: model.SessionRecord{},
	},
	"deleteSession": {
		tag:         "Sessions",
		summary:     "Delete a manually added session",
		description: "For sessions added by mistake; sessions from submissions keep their history and are cancelled instead (400).",
	},
	"cancelSession": {
		tag:     "Sessions",
		summary: "Cancel a session",
		description: "Records the cause; open tasks are waived; each speaker is emailed (with a calendar cancellation " +
			"when invites went out) unless notifySpeakers is false.",
		output: model.CancelSessionResult{},
	},
	"reinstateSession": {
		tag:         "Sessions",
		summary:     "Reinstate a cancelled session",
		description: "Clears the cancellation and reopens the tasks it waived; speakers are emailed unless notifySpeakers is false.",
		output:      model.ReinstateSessionResult{},
	},
	"getSessionTimeline": {
		tag:         "Sessions",
		summary:     "Get a session's timeline",
		description: "Lifecycle changes, decisions, emails, task completions, uploads and confirmations, newest first.",
		output:      []*model.TimelineItem{},
	},
	"setSessionSpeakers": {
		tag:         "Sessions",
		summary:     "Replace a session's speakers (ext)",
		description: "Speakers must be contacts of the event, in speaking order. Speaker tasks and deliverables follow.",
		output:      model.Session{},
	},

	// readiness.go
	"listTaskTemplates": {
		tag:     "Readiness",
		summary: "List task templates (ext)",
		output:  []*model.TaskTemplate{},
	},
	"saveTaskTemplate": {
		tag:     "Readiness",
		summary: "Create or update a task template (ext)",
		description: "id null creates. An auto-assigned template gives every accepted session (scope session) or " +
			"each of its speakers (scope speaker) a task, active sessions included.",
		output: model.TaskTemplate{},
	},
	"deleteTaskTemplate": {
		tag:     "Readiness",
		summary: "Delete a task template and its tasks (ext)",
	},
	"listFileRequirements": {
		tag:     "Readiness",
		summary: "List file requirements (ext)",
		output:  []*model.FileRequirement{},
	},
	"saveFileRequirement": {
		tag:         "Readiness",
		summary:     "Create or update a file requirement (ext)",
		description: "id null creates. Every accepted session (scope session) or each of its speakers (scope speaker) owes the file.",
		output:      model.FileRequirement{},
	},
	"deleteFileRequirement": {
		tag:     "Readiness",
		summary: "Delete a file requirement and its deliverables (ext)",
	},
	"listSessionTasks": {
		tag:         "Readiness",
		summary:     "List a session's tasks (ext)",
		description: "Session tasks and each speaker's tasks, by template position.",
		output:      []*model.Task{},
	},
	"setTaskStatus": {
		tag:     "Readiness",
		summary: "Mark a task todo, done or waived (ext)",
		output:  model.Task{},
	},
	"listSessionDeliverables": {
		tag:         "Readiness",
		summary:     "List a session's deliverables (ext)",
		description: "Session files and each speaker's files, by requirement position.",
		output:      []*model.Deliverable{},
	},
	"recordDeliverableUpload": {
		tag:     "Readiness",
		summary: "Record a deliverable's upload (ext)",
		output:  model.Deliverable{},
	},
	"clearDeliverableUpload": {
		tag:     "Readiness",
		summary: "Mark a deliverable outstanding again (ext)",
		output:  model.Deliverable{},
	},

	// reviews.go
	"getEvaluation": {
		tag:     "Reviews",
		summary: "Get the evaluation workspace",
		description: "Every review round with its criteria, reviewers, assignments, submissions, progress and results. " +
			"Blind rounds hide participant names and companies.",
		output: model.EvaluationWorkspace{},
	},
	"saveReviewRound": {
		tag:     "Reviews",
		summary: "Create or update a review round",
		description: "roundId null creates a round. The criteria replace the round's scorecard: criteria left out are " +
			"deleted, id null adds one, an id of this round keeps and updates it. The status follows the window.",
		output: model.SaveReviewRoundResult{},
	},
	"addReviewer": {
		tag:     "Reviews",
		summary: "Add a reviewer to a round",
		description: "Creates the reviewer's user record when the email is new and emails reviewers new to the pool " +
			"an invitation linking to accessPath. Adding a reviewer again updates their cap.",
		output: model.ReviewerProvisioned{},
	},
	"assignReviews": {
		tag:     "Reviews",
		summary: "Assign submissions to a reviewer",
		description: "Existing pairs are skipped. The round must be open (409 round_closed); a reviewer at their cap " +
			"gets 409 assignment_cap_exceeded and nothing is assigned.",
		output: AssignReviewsResult{},
	},
	"unassignReview": {
		tag:         "Reviews",
		summary:     "Remove a review assignment",
		description: "Deletes the assignment and its answers.",
	},
	"autoDistributeReviews": {
		tag:     "Reviews",
		summary: "Auto-distribute submissions across reviewers",
		description: "Fills every pending or maybe submission (in trackIds, when given) up to reviewsPerSubmission, one " +
			"level at a time: in-track reviewers first, then generalists, then out-of-track ones, the least loaded " +
			"first; conflicts (a reviewer's email is a participant's) and caps are respected. Deterministic; dryRun " +
			"plans without writing.",
		output: model.AutoDistributionResult{},
	},
	"sendReviewReminders": {
		tag:     "Reviews",
		summary: "Send reviewer reminders",
		description: "Emails each of the given reviewers who has pending assignments in the round. Reminders are " +
			"queued and delivered in the background, so sent and failed are 0.",
		output: model.ReviewRemindersResult{},
	},
	"generateAiReview": {
		tag:     "Reviews",
		summary: "Generate an AI review",
		description: "Has the AI provider (ANTHROPIC_API_KEY) score one submission against the round's scorecard. The " +
			"result replaces any earlier one and its override. 502 review_generation_error when no provider is " +
			"configured or it fails; nothing is stored then. Blind rounds send no speaker identity.",
		output: model.AIResult{},
	},
	"scoreRoundWithAi": {
		tag:     "Reviews",
		summary: "Score a round with AI in the background (ext)",
		description: "Queues one background job per submission (by default every call-for-proposals submission that " +
			"is neither a draft nor withdrawn); results appear in the workspace as jobs finish.",
		output: model.ScoreRoundWithAiResult{},
	},
	"overrideAiReview": {
		tag:         "Reviews",
		summary:     "Override an AI review score",
		description: "Keeps the provider's score and records the override with the API key as who made it.",
		output:      model.AIResult{},
	},
	"listReviewerTracks": {
		tag:     "Reviews",
		summary: "List reviewer tracks",
		output:  []*model.ReviewerTrackSet{},
	},
	"setReviewerTracks": {
		tag:         "Reviews",
		summary:     "Set a member's reviewer tracks",
		description: "Replaces the member's reviewer tracks; every id must be a track of the event.",
		output:      model.ReviewerTrackSet{},
	},
	"submitReviewAnswers": {
		tag:     "Reviews",
		summary: "Submit a review",
		description: "Records the answers and completes the assignment; resubmitting while the round is open replaces " +
			"them. Required criteria need a value; numeric values must be within bounds, dropdown values among the " +
			"options. From API version 2026-08-21 only the assigned reviewer answers: a person through an " +
			"application they authorized (docs/agents.md) answers their own assignments (another's is 404 " +
			"not_found); an API key is refused (403 forbidden).",
		output: model.ReviewAssignmentRecord{},
	},
	"recuseReview": {
		tag:     "Reviews",
		summary: "Recuse from a review",
		description: "Marks the assignment recused with the reason; twice is 409 already_recused. From API version " +
			"2026-08-21 only the assigned reviewer recuses, as for submitReviewAnswers.",
		output: model.ReviewAssignmentRecord{},
	},

	// resources.go
	"listResources": {
		tag:     "Resources",
		summary: "List resources",
		description: "Draft and published speaker resources in manual order, with their audience (trackIds, " +
			"contactIds). File resources, uploaded in the organizer app, are listed too.",
		output: []*model.ResourceRecord{},
	},
	"createResource": {
		tag:     "Resources",
		summary: "Create a resource",
		description: "A draft or published resource with no attachment, an https link, or an embed from YouTube, " +
			"Vimeo, Loom, Google Docs, Google Drive or Figma (those hosts exactly, with or without www.). It goes last.",
		output: model.ResourceRecord{},
	},
	"updateResource": {
		tag:     "Resources",
		summary: "Update a resource",
		description: "A full replace of text, publication, attachment and audience. A file resource keeps its file " +
			"when attachmentKind is null; files are replaced or removed only in the organizer app.",
		output: model.ResourceRecord{},
	},
	"deleteResource": {
		tag:         "Resources",
		summary:     "Delete a resource",
		description: "Deletes the resource; no body is answered.",
	},
	"reorderResources": {
		tag:     "Resources",
		summary: "Reorder resources",
		description: "The given resources (duplicates and ids of other events ignored) take positions 1..n in that " +
			"order; the others follow in their previous order.",
	},
	"downloadFile": {
		tag:     "Resources",
		summary: "Download a file (ext)",
		description: "The bytes of a file of the event: a resource's file (fileId is the part of fileStorageKey after " +
			"the slash), a deliverable, a headshot, the logo or background (logoUrl, backgroundUrl and headshotUrl " +
			"point here). Served with its stored Content-Type, Content-Length, Content-Disposition: attachment and " +
			"X-Content-Type-Options: nosniff; Range requests are answered 206. A file no row of the event points at " +
			"is 404.",
		output: fileBody{},
	},

	// agenda.go
	"getAgenda": {
		tag:         "Agenda",
		summary:     "Get the agenda",
		description: "Rooms, the tracks of active sessions, and every active session, scheduled or not, with the publication state.",
		output:      model.Agenda{},
	},
	"scheduleSession": {
		tag:     "Agenda",
		summary: "Place or clear a session on the schedule",
		description: "roomId, startsAt and endsAt all set to schedule (a room of the event, within one event day), " +
			"all null to unschedule. A change marks the session's invites out of date (scheduleDirty) and the " +
			"published agenda stale (agendaDirty).",
		output: model.Agenda{},
	},
	"publishAgenda": {
		tag:     "Agenda",
		summary: "Publish the agenda",
		description: "Freezes the active sessions that have a room, a start and an end, by start time, as the " +
			"event's publishedAgenda; agendaDirty becomes false. REST publishes whatever the agenda's conflicts: the " +
			"publish gate (blocking conflicts refuse a publish unless forced) is GraphQL's publishAgenda, until a " +
			"versioned REST surface carries it.",
		output: model.Agenda{},
	},
	"unpublishAgenda": {
		tag:         "Agenda",
		summary:     "Unpublish the agenda",
		description: "publishedAgenda becomes empty, agendaPublishedAt null and agendaDirty true.",
		output:      model.Agenda{},
	},
	"sendCalendarInvites": {
		tag:     "Agenda",
		summary: "Send calendar invitations (ext)",
		description: "Each speaker of a scheduled active session (all, or submissionIds) whose invitation is missing " +
			"or out of date gets an email with an iCalendar REQUEST: one UID per session, SEQUENCE raised when a " +
			"sent invitation changes. A session taken off the schedule after its invitations went out sends a " +
			"CANCEL. The body may be left out.",
		output: model.CalendarInvitesResult{},
	},
	"getPublicAgenda": {
		tag:     "Public",
		summary: "Get the published agenda (ext, no key)",
		description: "The published agenda only — nothing before the first publish, nothing edited since the last. " +
			"Addressed by event id, since slugs are unique only within an organization.",
		output: operation.PublicAgenda{},
	},
	"getPublicAgendaCalendar": {
		tag:     "Public",
		summary: "Subscribe to the published agenda (ext, no key)",
		description: "The published agenda as an iCalendar feed (METHOD:PUBLISH), each session under the UID of its " +
			"speakers' invitations.",
		output: calendarFeed(""),
	},

	// agenda_blocks.go
	"saveAgendaBlock": {
		tag:     "Agenda",
		summary: "Create or update an agenda block",
		description: "A block is what is not a session on the agenda: registration, a break, a meal, a social. Every " +
			"key is required; id null creates a block, roomId null spans every room. startsAt and endsAt fall on " +
			"5-minute marks within one event day. An unknown id is 400 \"Choose a block to edit\". Sets agendaDirty.",
		output: model.Agenda{},
	},
	"deleteAgendaBlock": {
		tag:         "Agenda",
		summary:     "Delete an agenda block",
		description: "An unknown block is not an error: the agenda is returned as it is. Sets agendaDirty when a block goes.",
		output:      model.Agenda{},
	},
	// agenda_versions.go
	"listAgendaVersions": {
		tag:     "Agenda",
		summary: "List the published versions of the agenda (ext)",
		description: "Every publish is a version, numbered from 1: newest first, with when, who published it and " +
			"how many sessions and blocks changed against the version before.",
		output: []model.AgendaVersionSummary{},
	},
	"getAgendaVersion": {
		tag:     "Agenda",
		summary: "Get a published version of the agenda (ext)",
		description: "The sessions and blocks the version published and its changes against the version before " +
			"(version 1: everything added). A number the agenda has no version of is 404 not_found.",
		output: model.AgendaVersion{},
	},
	"getPublicAgendaChanges": {
		tag:     "Public",
		summary: "Get the changelog of the published agenda (ext, no key)",
		description: "The published versions, newest first, with their numbers, dates and changes — published data " +
			"only, and none while the agenda is unpublished. Cached as the published agenda is (ETag, Last-Modified).",
		output: operation.PublicAgendaChanges{},
	},
	// agenda_exports.go
	"getScheduleJSON": {
		tag:     "Public",
		summary: "Export the published schedule as c3voc schedule.json (ext, no key)",
		description: "The published agenda in the c3voc schedule.json format conference apps read: days in the " +
			"event's time zone, rooms, sessions and blocks as events with guids that stay the same across publishes.",
		output: exportDocument{"application/json", "object", "a document of https://c3voc.de/schedule/schema.json"},
	},
	"getScheduleXML": {
		tag:     "Public",
		summary: "Export the published schedule as frab schedule.xml (ext, no key)",
		description: "The published agenda in the frab/pentabarf schedule.xml format conference apps read, with the " +
			"guids of schedule.json.",
		output: exportDocument{"application/xml", "string", "a document of https://c3voc.de/schedule/schema.xsd"},
	},
	"createPersonalCalendar": {
		tag:     "Public",
		summary: "Create a personal calendar of starred sessions (ext, no key)",
		description: "1 to 200 sessions of the published agenda of the widget's event, as a calendar at an " +
			"unguessable address (url, and webcalUrl for calendar apps). Only a hash of the address's token is stored.",
		output: operation.PersonalCalendarLink{},
	},
	"getPersonalCalendar": {
		tag:     "Public",
		summary: "Subscribe to a personal calendar (ext, no key)",
		description: "The starred sessions as they stand in the current published agenda (METHOD:PUBLISH), under " +
			"the UIDs of the agenda feed: a moved session moves, a removed one drops out.",
		output: calendarFeed(""),
	},

	// emails.go
	"listEmails": {
		tag:         "Emails",
		summary:     "List the event's emails",
		description: "Every email the event sent or is sending, newest first, with its delivery status.",
		query: []queryParam{
			{name: "status", description: "Only emails with this delivery status", enum: emailStatuses},
			{name: "type", description: "Only emails of this type", enum: emailTypes},
		},
		output: []EmailLog{},
	},

	// api_keys.go (docs/rest-api.md §2)
	"listApiKeys": {
		tag:     "API keys",
		summary: "List API keys (ext)",
		description: "The organization's keys, newest first, revoked and expired ones included: name, prefix, scopes, " +
			"event, creator and when each was made, last used, ends and was revoked. Secrets are never listed. " +
			"A key needs write to list keys; a key confined to one event sees that event's keys.",
		output: []model.APIKey{},
	},
	"createApiKey": {
		tag:     "API keys",
		summary: "Create an API key (ext)",
		description: "scopes are at least one of read, write and send_mail; eventId confines the key to one event; " +
			"expiresAt, in the future, ends it. A key gives a key no scope it lacks and no other event than its own. " +
			"The answer holds the secret, shown this once.",
		output: model.APIKeyWithSecret{},
	},
	"revokeApiKey": {
		tag:         "API keys",
		summary:     "Revoke an API key (ext)",
		description: "The key is refused from the next request on; revoking a revoked key changes nothing. Answers the key.",
		output:      model.APIKey{},
	},
	"rotateApiKey": {
		tag:     "API keys",
		summary: "Rotate an API key (ext)",
		description: "Makes a new key with the same name, scopes, event and expiry, shown this once, and ends the old key " +
			"after overlapHours (default 24, 0 to 168; 0 ends it at once).",
		output: model.APIKeyWithSecret{},
	},

	// webhooks.go (docs/webhooks.md)
	"listWebhookEventTypes": {
		tag:         "Webhooks",
		summary:     "List the webhook event types (ext)",
		description: "Every event type an endpoint can subscribe to; payloads are documented in docs/webhooks.md.",
		output:      []string{},
	},
	"listWebhooks": {
		tag:         "Webhooks",
		summary:     "List webhook endpoints (ext)",
		description: "The organization's endpoints, oldest first. Secrets are never listed.",
		output:      []model.Webhook{},
	},
	"createWebhook": {
		tag:     "Webhooks",
		summary: "Register a webhook endpoint (ext)",
		description: "url must be https (http only when the operator allows it) and resolve to public addresses only. " +
			"eventTypes empty or omitted subscribes to every type. The answer holds the signing secret, shown this once.",
		output: model.WebhookWithSecret{},
	},
	"getWebhook": {
		tag:     "Webhooks",
		summary: "Get a webhook endpoint (ext)",
		output:  model.Webhook{},
	},
	"updateWebhook": {
		tag:     "Webhooks",
		summary: "Update a webhook endpoint (ext)",
		description: "Partial update. enabled true re-enables an endpoint Podium disabled after days of failures and " +
			"clears disabledReason.",
		output: model.Webhook{},
	},
	"deleteWebhook": {
		tag:         "Webhooks",
		summary:     "Delete a webhook endpoint (ext)",
		description: "Deletes the endpoint and its delivery log; pending deliveries are dropped.",
	},
	"rotateWebhookSecret": {
		tag:     "Webhooks",
		summary: "Rotate a webhook endpoint's signing secret (ext)",
		description: "Makes a new secret, shown this once. For graceHours (default 24, 0 to 168) messages carry " +
			"signatures by both the old and the new secret.",
		output: model.WebhookWithSecret{},
	},
	"listWebhookDeliveries": {
		tag:         "Webhooks",
		summary:     "List an endpoint's deliveries (ext)",
		description: "The delivery log, newest first: status, attempts, last response code, latency and error.",
		query: []queryParam{
			{name: "status", description: "Only deliveries in this state", enum: []string{"pending", "succeeded", "failed"}},
			{name: "limit", description: "At most this many (default 100, at most 500)"},
		},
		output: []model.WebhookDeliveryEntry{},
	},
	"redeliverWebhook": {
		tag:         "Webhooks",
		summary:     "Redeliver one message (ext)",
		description: "Sends the delivery's message to its endpoint again, with the same webhook-id, whatever its state.",
		output:      model.WebhookDeliveryEntry{},
	},
	"redeliverWebhooks": {
		tag:         "Webhooks",
		summary:     "Redeliver everything since a time (ext)",
		description: "Sends every message delivered to the endpoint at or after since again (at most 10,000 at once).",
		output:      Redelivered{},
	},

	// campaigns.go (docs/campaigns.md)
	"getCommunications": {
		tag:     "Mail",
		summary: "Get the communications view",
		output:  model.CommunicationCenter{},
	},
	"sendCampaign": {
		tag:     "Mail",
		summary: "Send a campaign",
		description: "One email per speaker among contactIds (and, ext, the audience), with {speaker_name}, " +
			"{talk_title}, {event_name} and {portal_url} replaced, queued with the campaign in one transaction and " +
			"delivered in the background: sent counts emails queued, failed recipients refused (0).",
		output: model.SendCampaignResult{},
	},

	// crm.go (docs/crm.md)
	"listContacts": {
		tag:     "CRM",
		summary: "List the organization's contacts",
		query:   []queryParam{{name: "q", description: "Search text; blank lists every contact"}},
		output:  []model.CrmDirectoryRow{},
	},
	"createContact": {
		tag:     "CRM",
		summary: "Create a contact",
		description: "The email is trimmed and lower-cased and must contain @. A contact of the organization with the " +
			"same email answers 409 conflict.",
		output: model.CrmContact{},
	},
	"getContact": {
		tag:         "CRM",
		summary:     "Get a contact",
		description: "The contact with its tags, event links (with their sessions), notes, pipeline card and stage history.",
		output:      model.CrmContactDetail{},
	},
	"updateContact": {
		tag:     "CRM",
		summary: "Update a contact",
		description: "A full replacement: null clears title, company and bio, and socials left out are cleared. " +
			"custom is kept. The email rules are createContact's.",
		output: model.CrmContact{},
	},
	"importContacts": {
		tag:     "CRM",
		summary: "Import contacts",
		description: "Idempotent by email, in one transaction (all rows or none), at most 5,000 rows. behavior update " +
			"refreshes existing contacts, skip leaves them untouched; an email repeated in the batch counts as existing. " +
			"Returns created/updated/skipped counts with a per-row outcome list.",
		output: model.CrmImportResult{},
	},
	"addContactTag": {
		tag:         "CRM",
		summary:     "Tag a contact",
		description: "Creates the organization's tag of that name when there is none (names are case-sensitive) and puts it on the contact; repeating it changes nothing.",
		output:      model.CrmTag{},
	},
	"removeContactTag": {
		tag:         "CRM",
		summary:     "Untag a contact",
		description: "Takes the tag off the contact; the tag stays in the organization. A tag the contact does not carry is no error.",
	},
	"addContactNote": {
		tag:         "CRM",
		summary:     "Add a note to a contact",
		description: "Records the API key as the author (authorApiKeyId).",
		output:      model.CrmContactNote{},
	},
	"addContactToEvent": {
		tag:     "CRM",
		summary: "Add a contact to an event",
		description: "Copies the contact into the event as a speaker or organizer contact (an event contact with the same " +
			"email gets only its blank fields filled) and links them; the link's status is reset to invited. " +
			"The event must be the organization's.",
		output: model.CrmContactEvent{},
	},
	"mergeContacts": {
		tag:     "CRM",
		summary: "Merge two contacts",
		description: "Moves tags, notes, events, and pipeline history onto the primary, then deletes the duplicate. " +
			"The primary's null fields take the duplicate's. primaryId equal to duplicateId answers 409 duplicate_merge.",
		output: model.CrmContact{},
	},
	// pipeline.go (docs/crm-pipeline.md)
	"getPipeline": {
		tag:     "Pipeline",
		summary: "Get the pipeline",
		description: "Every stage of the organization by position (then name), each with its cards by the contact's " +
			"last name, then first name. An organization without stages gets {columns: []}.",
		output: model.CrmPipelineBoard{},
	},
	"savePipelineStage": {
		tag:     "Pipeline",
		summary: "Create or update a pipeline stage",
		description: "id null creates a stage; an id of the organization's stages updates it (404 otherwise). The name " +
			"is trimmed, not empty and unique in the organization (409 conflict). position is a whole number, stored " +
			"as sent; other stages keep theirs.",
		output: model.CrmPipelineStage{},
	},
	"reorderPipelineStages": {
		tag:     "Pipeline",
		summary: "Reorder the pipeline's stages",
		description: "The listed stages get positions 1..n in the given order, in one transaction. Ids that are not " +
			"the organization's stages are ignored; stages left out keep their positions.",
		output: Reordered{},
	},
	"deletePipelineStage": {
		tag:     "Pipeline",
		summary: "Delete a pipeline stage",
		description: "A stage that still holds cards cannot be deleted (409 resource_in_use). The stage history keeps " +
			"the stage's name.",
	},
	"addPipelineCard": {
		tag:     "Pipeline",
		summary: "Place a contact in a stage",
		description: "A contact has one card: the first call creates it, later calls move it to stageId and replace " +
			"its note (null included). A stage history row is written for a new card and whenever the stage changes. " +
			"A contact or stage that is not the organization's is 404.",
		output: model.CrmContactCard{},
	},
	"movePipelineCard": {
		tag:     "Pipeline",
		summary: "Move a card to another stage",
		description: "Writes a stage history row with the actor. Moving a card to the stage it is in is 409 " +
			"invalid_pipeline_move; an unknown card or stage is 404.",
		output: model.CrmContactCard{},
	},

	// segments.go (docs/crm-pipeline.md)
	"listSegments": {
		tag:     "CRM",
		summary: "List segments",
		output:  []model.CrmSegment{},
	},
	"saveSegment": {
		tag:     "CRM",
		summary: "Save a segment",
		description: "Upsert by name: saving under an existing name replaces that segment's filter and keeps its id. " +
			"filter must be an object and is stored as sent; search, company and title (strings, at most 500 " +
			"characters) and tagIds (at most 500) are what Podium evaluates.",
		output: model.CrmSegment{},
	},
	"listSegmentContacts": {
		tag:     "CRM",
		summary: "List a segment's contacts (ext)",
		description: "The contacts the segment's filter selects now, evaluated in the database, as rows of " +
			"listContacts ({contact, tags, events}), by last name, first name and id, a page at a time.",
		query: []queryParam{
			{name: "limit", description: "At most this many rows (default 100, at most 1000)"},
			{name: "after", description: "The nextCursor of the page before"},
		},
		output: SegmentContacts{},
	},
	// agenda_drafts.go
	"listAgendaDrafts": {
		tag:         "Agenda",
		summary:     "List agenda drafts",
		description: "The event's agenda drafts, every status (queued, draft, generated, committed, discarded, failed), newest first.",
		output:      []model.AgendaDraft{},
	},
	"generateAgendaDraft": {
		tag:     "Agenda",
		summary: "Generate an agenda draft",
		description: "Checks the criteria (a name of at most 120 characters; includeStatuses exactly [\"accepted\"]; at " +
			"least one room, each of the event; at least one day, each a local date of the event; at most 12 rules of " +
			"at most 200 characters), stores the draft and generates it before answering: with the AI " +
			"provider when one is configured, by the deterministic solver otherwise. The proposal is checked and " +
			"repaired; a draft for which no valid agenda can be made becomes failed, with failureReason (ext). " +
			"When generating cannot end within 40 seconds (a provider down or slow), the draft is answered queued " +
			"and a background job generates it.",
		output: model.AgendaDraft{},
	},
	"changeAgendaDraft": {
		tag:     "Agenda",
		summary: "Duplicate or discard an agenda draft",
		description: "duplicate answers a new draft (status draft) with the same criteria and no proposal; discard " +
			"sets the draft aside, except a committed one (400).",
		output: model.AgendaDraft{},
	},
	"acceptAgendaDraft": {
		tag:     "Agenda",
		summary: "Accept changes of an agenda draft",
		description: "Applies the proposed slots of submissionIds (sessions whose proposed slot differs from the live " +
			"one) to the live schedule, all or none: a room or speaker booked twice by the result is 409 " +
			"schedule_conflict. Each moved session is marked scheduleDirty, the agenda agendaDirty, the draft committed.",
		output: model.AcceptAgendaDraftResult{},
	},
	// widgets.go (docs/widgets.md)
	"getProgram": {
		tag:     "Widgets",
		summary: "Get the public program",
		description: "The sessions of the published agenda that are still active (accepted, not cancelled), with " +
			"their approved content, tracks, tags and speakers' public profile fields, by start time: what the " +
			"event's widgets render. Empty while the agenda is not published.",
		output: model.Program{},
	},
	"listWidgets": {
		tag:         "Widgets",
		summary:     "List widgets",
		description: "The event's widgets by name, every option present.",
		output:      []model.Widget{},
	},
	"createWidget": {
		tag:     "Widgets",
		summary: "Create a widget",
		description: "An enabled widget with the default options, live at once at /embed/{widgetId}, " +
			"/embed/{widgetId}/json and /embed/{widgetId}/ics.",
		output: model.Widget{},
	},
	"updateWidget": {
		tag:     "Widgets",
		summary: "Update a widget",
		description: "A full replacement of name, view, enabled and options. primaryColor must be #rrggbb or null; " +
			"customCss may not contain \"<\", a backslash or @import.",
		output: model.Widget{},
	},
}

// routeDoc is what the OpenAPI document says of an operation beyond its route.
type routeDoc struct {
	tag, summary, description string
	query                     []queryParam
	// output is a value of the success body's Go type; nil for 204. A calendarFeed answers
	// text/calendar, a oneOf one of several shapes.
	output any
}

// overriddenBy is d with the fields o sets (currentDocs over routeDocs).
func (d routeDoc) overriddenBy(o routeDoc) routeDoc {
	if o.tag != "" {
		d.tag = o.tag
	}
	if o.summary != "" {
		d.summary = o.summary
	}
	if o.description != "" {
		d.description = o.description
	}
	if o.query != nil {
		d.query = o.query
	}
	d.output = o.output
	return d
}

// queryParam documents a query-string parameter.
type queryParam struct {
	name, description string
	enum              []string
}

// oneOf documents a body that is one of several shapes.
type oneOf []any
