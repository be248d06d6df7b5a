package rest

import (
	"context"
	"net/http"

	"github.com/podium/podium/graph"
)

// AssignReviewsResult is POST …/assignments.
type AssignReviewsResult struct {
	Created int `json:"created"`
	Skipped int `json:"skipped"`
}

func (a *API) reviewRoutes() []route {
	m := func() graph.MutationResolver { return a.res.Mutation() }
	return []route{
		{
			method: http.MethodGet, path: "/events/{eventId}/evaluation", operationID: "getEvaluation", tag: "Reviews",
			summary: "Get the evaluation workspace",
			description: "Every review round with its criteria, reviewers, assignments, submissions, progress and results. " +
				"Blind rounds hide participant names and companies.",
			output: graph.EvaluationWorkspace{}, status: http.StatusOK,
			handle: func(ctx context.Context, q *request) (any, error) {
				ev, err := a.res.Query().Event(ctx, q.param("eventId"))
				if err != nil {
					return nil, err
				}
				return a.res.Event().Evaluation(ctx, ev)
			},
		},
		{
			method: http.MethodPost, path: "/events/{eventId}/review-rounds", operationID: "saveReviewRound", tag: "Reviews",
			summary: "Create or update a review round",
			description: "roundId null creates a round. The criteria replace the round's scorecard: criteria left out are " +
				"deleted, id null adds one, an id of this round keeps and updates it. The status follows the window.",
			input: "SaveReviewRoundInput", output: graph.SaveReviewRoundResult{}, status: http.StatusOK,
			handle: withBody(func(ctx context.Context, q *request, in graph.SaveReviewRoundInput) (any, error) {
				return m().SaveReviewRound(ctx, q.param("eventId"), in)
			}),
		},
		{
			method: http.MethodPost, path: "/events/{eventId}/review-rounds/{roundId}/members", operationID: "addReviewer",
			tag: "Reviews", summary: "Add a reviewer to a round",
			description: "Creates the reviewer's user record when the email is new and emails reviewers new to the pool " +
				"an invitation linking to accessPath. Adding a reviewer again updates their cap.",
			input: "AddReviewerInput", output: graph.ReviewerProvisioned{}, status: http.StatusCreated,
			handle: withBody(func(ctx context.Context, q *request, in graph.AddReviewerInput) (any, error) {
				return m().AddReviewer(ctx, q.param("eventId"), q.param("roundId"), in)
			}),
		},
		{
			method: http.MethodPost, path: "/events/{eventId}/review-rounds/{roundId}/assignments", operationID: "assignReviews",
			tag: "Reviews", summary: "Assign submissions to a reviewer",
			description: "Existing pairs are skipped. The round must be open (409 round_closed); a reviewer at their cap " +
				"gets 409 assignment_cap_exceeded and nothing is assigned.",
			input: "AssignReviewsInput", output: AssignReviewsResult{}, status: http.StatusOK,
			handle: withBody(func(ctx context.Context, q *request, in graph.AssignReviewsInput) (any, error) {
				res, err := m().AssignReviews(ctx, q.param("eventId"), q.param("roundId"), in)
				if err != nil {
					return nil, err
				}
				return AssignReviewsResult{Created: res.Created, Skipped: res.Skipped}, nil
			}),
		},
		{
			method: http.MethodDelete, path: "/events/{eventId}/review-rounds/{roundId}/assignments/{assignmentId}",
			operationID: "unassignReview", tag: "Reviews", summary: "Remove a review assignment",
			description: "Deletes the assignment and its answers.",
			status:      http.StatusNoContent,
			handle: func(ctx context.Context, q *request) (any, error) {
				_, err := m().UnassignReview(ctx, q.param("eventId"), q.param("roundId"), q.param("assignmentId"))
				return nil, err
			},
		},
		{
			method: http.MethodPost, path: "/events/{eventId}/review-rounds/{roundId}/auto-distribute",
			operationID: "autoDistributeReviews", tag: "Reviews", summary: "Auto-distribute submissions across reviewers",
			description: "Fills every pending or maybe submission (in trackIds, when given) up to reviewsPerSubmission, one " +
				"level at a time: in-track reviewers first, then generalists, then out-of-track ones, the least loaded " +
				"first; conflicts (a reviewer's email is a participant's) and caps are respected. Deterministic; dryRun " +
				"plans without writing.",
			input: "AutoDistributeReviewsInput", output: graph.AutoDistributionResult{}, status: http.StatusOK,
			handle: withBody(func(ctx context.Context, q *request, in graph.AutoDistributeReviewsInput) (any, error) {
				return m().AutoDistributeReviews(ctx, q.param("eventId"), q.param("roundId"), in)
			}),
		},
		{
			method: http.MethodGet, path: "/events/{eventId}/reviewer-tracks", operationID: "listReviewerTracks", tag: "Reviews",
			summary:     "List reviewer tracks",
			description: "The reviewer tracks of every member of the event.",
			output:      []*graph.ReviewerTrackSet{}, status: http.StatusOK,
			handle: func(ctx context.Context, q *request) (any, error) {
				ev, err := a.res.Query().Event(ctx, q.param("eventId"))
				if err != nil {
					return nil, err
				}
				return a.res.Event().ReviewerTracks(ctx, ev)
			},
		},
		{
			method: http.MethodPut, path: "/events/{eventId}/reviewer-tracks/{eventMemberId}", operationID: "setReviewerTracks",
			tag: "Reviews", summary: "Set a member's reviewer tracks",
			description: "Replaces the member's reviewer tracks; every id must be a track of the event.",
			input:       "SetReviewerTracksInput", output: graph.ReviewerTrackSet{}, status: http.StatusOK,
			handle: withBody(func(ctx context.Context, q *request, in graph.SetReviewerTracksInput) (any, error) {
				return m().SetReviewerTracks(ctx, q.param("eventId"), q.param("eventMemberId"), in)
			}),
		},
		{
			method: http.MethodPost, path: "/events/{eventId}/review-assignments/{assignmentId}/answers",
			operationID: "submitReviewAnswers", tag: "Reviews", summary: "Submit a review",
			description: "Records the answers and completes the assignment; resubmitting while the round is open replaces " +
				"them. Required criteria need a value; numeric values must be within bounds, dropdown values among the " +
				"options.",
			input: "SubmitReviewAnswersInput", output: graph.ReviewAssignmentRecord{}, status: http.StatusOK,
			handle: withBody(func(ctx context.Context, q *request, in graph.SubmitReviewAnswersInput) (any, error) {
				return m().SubmitReviewAnswers(ctx, q.param("eventId"), q.param("assignmentId"), in)
			}),
		},
		{
			method: http.MethodPost, path: "/events/{eventId}/review-assignments/{assignmentId}/recuse",
			operationID: "recuseReview", tag: "Reviews", summary: "Recuse from a review",
			description: "Marks the assignment recused with the reason; twice is 409 already_recused.",
			input:       "RecuseReviewInput", output: graph.ReviewAssignmentRecord{}, status: http.StatusOK,
			handle: withBody(func(ctx context.Context, q *request, in graph.RecuseReviewInput) (any, error) {
				return m().RecuseReview(ctx, q.param("eventId"), q.param("assignmentId"), in)
			}),
		},
		{
			method: http.MethodPost, path: "/events/{eventId}/review-rounds/{roundId}/reminders", operationID: "sendReviewReminders",
			tag: "Reviews", summary: "Send reviewer reminders",
			description: "Emails each of the given reviewers who has pending assignments in the round. Reminders are " +
				"queued and delivered in the background, so sent and failed are 0.",
			input: "SendReviewRemindersInput", output: graph.ReviewRemindersResult{}, status: http.StatusOK,
			handle: withBody(func(ctx context.Context, q *request, in graph.SendReviewRemindersInput) (any, error) {
				return m().SendReviewReminders(ctx, q.param("eventId"), q.param("roundId"), in)
			}),
		},
		{
			method: http.MethodPost, path: "/events/{eventId}/review-rounds/{roundId}/ai-review", operationID: "generateAiReview",
			tag: "Reviews", summary: "Generate an AI review",
			description: "Has the AI provider (ANTHROPIC_API_KEY) score one submission against the round's scorecard. The " +
				"result replaces any earlier one and its override. 502 review_generation_error when no provider is " +
				"configured or it fails; nothing is stored then. Blind rounds send no speaker identity.",
			input: "GenerateAiReviewInput", output: graph.AIResult{}, status: http.StatusOK,
			handle: withBody(func(ctx context.Context, q *request, in graph.GenerateAiReviewInput) (any, error) {
				return m().GenerateAiReview(ctx, q.param("eventId"), q.param("roundId"), in)
			}),
		},
		{
			method: http.MethodPost, path: "/events/{eventId}/review-rounds/{roundId}/ai-scoring", operationID: "scoreRoundWithAi",
			tag: "Reviews", summary: "Score a round with AI in the background (ext)",
			description: "Queues one background job per submission (by default every call-for-proposals submission that " +
				"is neither a draft nor withdrawn); results appear in the workspace as jobs finish.",
			input: "ScoreRoundWithAiInput", output: graph.ScoreRoundWithAiResult{}, status: http.StatusOK,
			handle: withBody(func(ctx context.Context, q *request, in graph.ScoreRoundWithAiInput) (any, error) {
				return m().ScoreRoundWithAi(ctx, q.param("eventId"), q.param("roundId"), &in)
			}),
		},
		{
			method: http.MethodPost, path: "/events/{eventId}/ai-review-override", operationID: "overrideAiReview", tag: "Reviews",
			summary:     "Override an AI review score",
			description: "Keeps the provider's score and records the override with the API key as who made it.",
			input:       "OverrideAiReviewInput", output: graph.AIResult{}, status: http.StatusOK,
			handle: withBody(func(ctx context.Context, q *request, in graph.OverrideAiReviewInput) (any, error) {
				return m().OverrideAiReview(ctx, q.param("eventId"), in)
			}),
		},
	}
}
