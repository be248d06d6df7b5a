package rest

import (
	"context"
	"net/http"

	"github.com/podium/podium/ent/schema/agenda"
	"github.com/podium/podium/graph"
	"github.com/podium/podium/graph/apperr"
)

// SessionList is GET E/sessions.
type SessionList struct {
	Sessions []*graph.Session `json:"sessions"`
	Tracks   []agenda.Track   `json:"tracks"`
	Formats  []string         `json:"formats"`
}

// SubmissionDetail is GET E/submissions/{id}.
type SubmissionDetail struct {
	Submission   *graph.Submission         `json:"submission"`
	Answers      []*graph.SubmissionAnswer `json:"answers"`
	Reviews      []*graph.QuickReview      `json:"reviews"`
	RoundReviews []*graph.HumanReview      `json:"roundReviews"`
	Activity     []*graph.TimelineItem     `json:"activity"`
	Emails       []*graph.SubmissionEmail  `json:"emails"`
}

func (a *API) sessionRoutes() []route {
	// session loads the session of the path, after checking event access.
	session := func(ctx context.Context, q *request) (*graph.Session, error) {
		ev, err := a.res.Query().Event(ctx, q.param("eventId"))
		if err != nil {
			return nil, err
		}
		return a.res.Event().Session(ctx, ev, q.param("submissionId"))
	}
	return []route{
		{
			method: http.MethodGet, path: "/events/{eventId}/sessions", operationID: "listSessions", tag: "Sessions",
			summary: "List sessions",
			description: "Every accepted submission and manually added session with its readiness read model; cancelled " +
				"sessions stay listed with their cause. state=active or state=cancelled filters; tracks and formats " +
				"cover all sessions.",
			query:  []queryParam{{name: "state", description: "active or cancelled; anything else lists all", enum: []string{"active", "cancelled"}}},
			output: SessionList{}, status: http.StatusOK,
			handle: func(ctx context.Context, q *request) (any, error) {
				ev, err := a.res.Query().Event(ctx, q.param("eventId"))
				if err != nil {
					return nil, err
				}
				var state *graph.SessionState
				if s := graph.SessionState(q.URL.Query().Get("state")); s.IsValid() {
					state = &s
				}
				conn, err := a.res.Event().Sessions(ctx, ev, state, nil, nil, nil, nil)
				if err != nil {
					return nil, err
				}
				out := SessionList{Sessions: make([]*graph.Session, len(conn.Edges)), Tracks: conn.Tracks, Formats: conn.Formats}
				for i, e := range conn.Edges {
					out.Sessions[i] = e.Node
				}
				return out, nil
			},
		},
		{
			method: http.MethodPost, path: "/events/{eventId}/sessions", operationID: "createSession", tag: "Sessions",
			summary: "Create a session directly",
			description: "Creates an accepted session without a call-for-proposals submission. Speakers must already be " +
				"contacts of the event (403 otherwise). No email is sent.",
			input: "CreateSessionInput", output: graph.SessionRecord{}, status: http.StatusCreated,
			handle: withBody(func(ctx context.Context, q *request, in graph.CreateSessionInput) (any, error) {
				return a.res.Mutation().CreateSession(ctx, q.param("eventId"), in)
			}),
		},
		{
			method: http.MethodPost, path: "/events/{eventId}/sessions/{submissionId}/cancel", operationID: "cancelSession",
			tag: "Sessions", summary: "Cancel a session",
			description: "Records the cause; open tasks are waived; each speaker is emailed (with a calendar cancellation " +
				"when invites went out) unless notifySpeakers is false.",
			input: "CancelSessionInput", output: graph.CancelSessionResult{}, status: http.StatusOK,
			handle: withBody(func(ctx context.Context, q *request, in graph.CancelSessionInput) (any, error) {
				return a.res.Mutation().CancelSession(ctx, q.param("eventId"), q.param("submissionId"), in)
			}),
		},
		{
			method: http.MethodPost, path: "/events/{eventId}/sessions/{submissionId}/reinstate", operationID: "reinstateSession",
			tag: "Sessions", summary: "Reinstate a cancelled session",
			description: "Clears the cancellation and reopens the tasks it waived; speakers are emailed unless notifySpeakers is false.",
			input:       "ReinstateSessionInput", output: graph.ReinstateSessionResult{}, status: http.StatusOK,
			handle: withBody(func(ctx context.Context, q *request, in graph.ReinstateSessionInput) (any, error) {
				return a.res.Mutation().ReinstateSession(ctx, q.param("eventId"), q.param("submissionId"), in)
			}),
		},
		{
			method: http.MethodDelete, path: "/events/{eventId}/sessions/{submissionId}", operationID: "deleteSession",
			tag: "Sessions", summary: "Delete a manually added session",
			description: "For sessions added by mistake; sessions from submissions keep their history and are cancelled instead (400).",
			status:      http.StatusNoContent,
			handle: func(ctx context.Context, q *request) (any, error) {
				_, err := a.res.Mutation().DeleteSession(ctx, q.param("eventId"), q.param("submissionId"))
				return nil, err
			},
		},
		{
			method: http.MethodGet, path: "/events/{eventId}/sessions/{submissionId}/timeline", operationID: "getSessionTimeline",
			tag: "Sessions", summary: "Get a session's timeline",
			description: "Lifecycle changes, decisions, emails, task completions, uploads and confirmations, newest first.",
			output:      []*graph.TimelineItem{}, status: http.StatusOK,
			handle: func(ctx context.Context, q *request) (any, error) {
				ev, err := a.res.Query().Event(ctx, q.param("eventId"))
				if err != nil {
					return nil, err
				}
				sub, err := a.res.Event().Submission(ctx, ev, q.param("submissionId"))
				if err != nil {
					return nil, err
				}
				return a.res.Submission().Activity(ctx, sub)
			},
		},
		{
			method: http.MethodPut, path: "/events/{eventId}/sessions/{submissionId}/speakers", operationID: "setSessionSpeakers",
			tag: "Sessions", summary: "Replace a session's speakers (ext)",
			description: "Speakers must be contacts of the event, in speaking order. Speaker tasks and deliverables follow.",
			input:       "SetSessionSpeakersInput", output: graph.Session{}, status: http.StatusOK,
			handle: withBody(func(ctx context.Context, q *request, in graph.SetSessionSpeakersInput) (any, error) {
				return a.res.Mutation().SetSessionSpeakers(ctx, q.param("eventId"), q.param("submissionId"), in)
			}),
		},
		{
			method: http.MethodGet, path: "/events/{eventId}/sessions/{submissionId}/tasks", operationID: "listSessionTasks",
			tag: "Readiness", summary: "List a session's tasks (ext)",
			description: "Session tasks and each speaker's tasks, by template position.",
			output:      []*graph.Task{}, status: http.StatusOK,
			handle: func(ctx context.Context, q *request) (any, error) {
				s, err := session(ctx, q)
				if err != nil {
					return nil, err
				}
				return a.res.Session().Tasks(ctx, s)
			},
		},
		{
			method: http.MethodPatch, path: "/events/{eventId}/sessions/{submissionId}/tasks/{taskId}", operationID: "setTaskStatus",
			tag: "Readiness", summary: "Mark a task todo, done or waived (ext)",
			input: "SetTaskStatusInput", output: graph.Task{}, status: http.StatusOK,
			handle: withBody(func(ctx context.Context, q *request, in graph.SetTaskStatusInput) (any, error) {
				return a.res.Mutation().SetTaskStatus(ctx, q.param("eventId"), q.param("submissionId"), q.param("taskId"), in)
			}),
		},
		{
			method: http.MethodGet, path: "/events/{eventId}/sessions/{submissionId}/deliverables", operationID: "listSessionDeliverables",
			tag: "Readiness", summary: "List a session's deliverables (ext)",
			description: "Session files and each speaker's files, by requirement position.",
			output:      []*graph.Deliverable{}, status: http.StatusOK,
			handle: func(ctx context.Context, q *request) (any, error) {
				s, err := session(ctx, q)
				if err != nil {
					return nil, err
				}
				return a.res.Session().Deliverables(ctx, s)
			},
		},
		{
			method: http.MethodPut, path: "/events/{eventId}/sessions/{submissionId}/deliverables/{deliverableId}",
			operationID: "recordDeliverableUpload", tag: "Readiness", summary: "Record a deliverable's upload (ext)",
			description: "The organizer app stores the bytes; Podium records file name, content type, size and storage key.",
			input:       "RecordDeliverableUploadInput", output: graph.Deliverable{}, status: http.StatusOK,
			handle: withBody(func(ctx context.Context, q *request, in graph.RecordDeliverableUploadInput) (any, error) {
				return a.res.Mutation().RecordDeliverableUpload(ctx, q.param("eventId"), q.param("submissionId"), q.param("deliverableId"), in)
			}),
		},
		{
			method: http.MethodDelete, path: "/events/{eventId}/sessions/{submissionId}/deliverables/{deliverableId}",
			operationID: "clearDeliverableUpload", tag: "Readiness", summary: "Mark a deliverable outstanding again (ext)",
			output: graph.Deliverable{}, status: http.StatusOK,
			handle: func(ctx context.Context, q *request) (any, error) {
				return a.res.Mutation().ClearDeliverableUpload(ctx, q.param("eventId"), q.param("submissionId"), q.param("deliverableId"))
			},
		},
	}
}

func (a *API) submissionRoutes() []route {
	return []route{
		{
			method: http.MethodGet, path: "/events/{eventId}/submissions", operationID: "listSubmissions", tag: "Submissions",
			summary: "List submissions",
			description: "The call-for-proposals submissions of every status, with speakers and review figures; status " +
				"filters. Manual sessions are listed under Sessions only.",
			query:  []queryParam{{name: "status", description: "Only submissions with this status", enum: []string{"draft", "pending", "maybe", "accepted", "declined", "withdrawn"}}},
			output: graph.SubmissionList{}, status: http.StatusOK,
			handle: func(ctx context.Context, q *request) (any, error) {
				ev, err := a.res.Query().Event(ctx, q.param("eventId"))
				if err != nil {
					return nil, err
				}
				var status *graph.SubmissionStatus
				if s := q.URL.Query().Get("status"); s != "" {
					st := graph.SubmissionStatus(s)
					if !st.IsValid() {
						return nil, apperr.Invalid("status must be one of draft, pending, maybe, accepted, declined, withdrawn")
					}
					status = &st
				}
				return a.res.Event().Submissions(ctx, ev, status)
			},
		},
		{
			method: http.MethodPost, path: "/events/{eventId}/submissions", operationID: "createSubmission", tag: "Submissions",
			summary: "Bring in a proposal (ext)",
			description: "For proposals from another tool: the submission comes through the event's default call for " +
				"proposals; the first speaker is the submitter. status is draft or pending (default).",
			input: "CreateSubmissionInput", output: graph.SessionRecord{}, status: http.StatusCreated,
			handle: withBody(func(ctx context.Context, q *request, in graph.CreateSubmissionInput) (any, error) {
				return a.res.Mutation().CreateSubmission(ctx, q.param("eventId"), in)
			}),
		},
		{
			method: http.MethodGet, path: "/events/{eventId}/submissions/{submissionId}", operationID: "getSubmission",
			tag: "Submissions", summary: "Get a submission",
			description: "Full detail: answers, reviews, history and emails.",
			output:      SubmissionDetail{}, status: http.StatusOK,
			handle: func(ctx context.Context, q *request) (any, error) {
				ev, err := a.res.Query().Event(ctx, q.param("eventId"))
				if err != nil {
					return nil, err
				}
				sub, err := a.res.Event().Submission(ctx, ev, q.param("submissionId"))
				if err != nil {
					return nil, err
				}
				d := SubmissionDetail{Submission: sub}
				if d.Answers, err = a.res.Submission().Answers(ctx, sub); err != nil {
					return nil, err
				}
				if d.Reviews, err = a.res.Submission().Reviews(ctx, sub); err != nil {
					return nil, err
				}
				if d.RoundReviews, err = a.res.Submission().RoundReviews(ctx, sub); err != nil {
					return nil, err
				}
				if d.Activity, err = a.res.Submission().Activity(ctx, sub); err != nil {
					return nil, err
				}
				if d.Emails, err = a.res.Submission().Emails(ctx, sub); err != nil {
					return nil, err
				}
				return d, nil
			},
		},
		{
			method: http.MethodPatch, path: "/events/{eventId}/submissions/{submissionId}", operationID: "changeSubmissionStatus",
			tag: "Submissions", summary: "Change a submission's status",
			description: "To pending, maybe or withdrawn. Accepting and declining go through decide; an accepted " +
				"submission is cancelled as a session instead. The same status is a no-op.",
			input: "ChangeSubmissionStatusInput", output: graph.StatusChangeResult{}, status: http.StatusOK,
			handle: withBody(func(ctx context.Context, q *request, in graph.ChangeSubmissionStatusInput) (any, error) {
				return a.res.Mutation().ChangeSubmissionStatus(ctx, q.param("eventId"), q.param("submissionId"), in)
			}),
		},
		{
			method: http.MethodPost, path: "/events/{eventId}/submissions/decide", operationID: "decideSubmissions",
			tag: "Submissions", summary: "Accept or decline submissions",
			description: "Each speaker of each submission gets a decision email. Declined → accepted needs " +
				"confirmRedecide (409 already_decided otherwise). Acceptance assigns tasks and deliverables.",
			input: "DecideSubmissionsInput", output: graph.DecisionResult{}, status: http.StatusOK,
			handle: withBody(func(ctx context.Context, q *request, in graph.DecideSubmissionsInput) (any, error) {
				return a.res.Mutation().DecideSubmissions(ctx, q.param("eventId"), in)
			}),
		},
	}
}

func (a *API) readinessRoutes() []route {
	return []route{
		{
			method: http.MethodGet, path: "/events/{eventId}/task-templates", operationID: "listTaskTemplates", tag: "Readiness",
			summary: "List task templates (ext)", output: []*graph.TaskTemplate{}, status: http.StatusOK,
			handle: func(ctx context.Context, q *request) (any, error) {
				ev, err := a.res.Query().Event(ctx, q.param("eventId"))
				if err != nil {
					return nil, err
				}
				return a.res.Event().TaskTemplates(ctx, ev)
			},
		},
		{
			method: http.MethodPost, path: "/events/{eventId}/task-templates", operationID: "saveTaskTemplate", tag: "Readiness",
			summary: "Create or update a task template (ext)",
			description: "id null creates. An auto-assigned template gives every accepted session (scope session) or " +
				"each of its speakers (scope speaker) a task, active sessions included.",
			input: "SaveTaskTemplateInput", output: graph.TaskTemplate{}, status: http.StatusOK,
			handle: withBody(func(ctx context.Context, q *request, in graph.SaveTaskTemplateInput) (any, error) {
				return a.res.Mutation().SaveTaskTemplate(ctx, q.param("eventId"), in)
			}),
		},
		{
			method: http.MethodDelete, path: "/events/{eventId}/task-templates/{templateId}", operationID: "deleteTaskTemplate",
			tag: "Readiness", summary: "Delete a task template and its tasks (ext)", status: http.StatusNoContent,
			handle: func(ctx context.Context, q *request) (any, error) {
				_, err := a.res.Mutation().DeleteTaskTemplate(ctx, q.param("eventId"), q.param("templateId"))
				return nil, err
			},
		},
		{
			method: http.MethodGet, path: "/events/{eventId}/file-requirements", operationID: "listFileRequirements", tag: "Readiness",
			summary: "List file requirements (ext)", output: []*graph.FileRequirement{}, status: http.StatusOK,
			handle: func(ctx context.Context, q *request) (any, error) {
				ev, err := a.res.Query().Event(ctx, q.param("eventId"))
				if err != nil {
					return nil, err
				}
				return a.res.Event().FileRequirements(ctx, ev)
			},
		},
		{
			method: http.MethodPost, path: "/events/{eventId}/file-requirements", operationID: "saveFileRequirement", tag: "Readiness",
			summary:     "Create or update a file requirement (ext)",
			description: "id null creates. Every accepted session (scope session) or each of its speakers (scope speaker) owes the file.",
			input:       "SaveFileRequirementInput", output: graph.FileRequirement{}, status: http.StatusOK,
			handle: withBody(func(ctx context.Context, q *request, in graph.SaveFileRequirementInput) (any, error) {
				return a.res.Mutation().SaveFileRequirement(ctx, q.param("eventId"), in)
			}),
		},
		{
			method: http.MethodDelete, path: "/events/{eventId}/file-requirements/{requirementId}", operationID: "deleteFileRequirement",
			tag: "Readiness", summary: "Delete a file requirement and its deliverables (ext)", status: http.StatusNoContent,
			handle: func(ctx context.Context, q *request) (any, error) {
				_, err := a.res.Mutation().DeleteFileRequirement(ctx, q.param("eventId"), q.param("requirementId"))
				return nil, err
			},
		},
	}
}
