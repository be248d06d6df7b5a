package graph

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/podium/podium/ent/dbx"
	"github.com/podium/podium/graph/apperr"
)

// MaxPageSize is the most items first or last may ask for on any list that takes them: the
// session board of the largest event the performance targets are set for (2,000 sessions) fits
// in one page, a request for more is refused with invalid_input before anything runs. Lists with
// a smaller maximum of their own (the contact directory, webhook deliveries) keep it.
const MaxPageSize = 2000

// The complexity of a list is the number of items it may hold times the cost of one item, so that
// the complexity limit bounds what a request reads rather than how long its document is. A page
// holds what first or last asks for, MaxPageSize when neither is given (the list is read whole).
// A list without pages holds an estimate.
const (
	// nestedListItems estimates an unpaginated list of one item: a session's speakers, a
	// submission's emails, a contact's resources — a handful, rarely more than a few dozen.
	nestedListItems = 10
	// collectionItems estimates an unpaginated list that holds an event's whole collection of
	// something (listItems): its submissions, agenda, speaker rows or review assignments.
	collectionItems = 1000
)

// listItems estimates the unpaginated lists that are not nestedListItems long: those that hold
// an event's whole collection (collectionItems) and a few that are always short.
var listItems = map[string]int{
	"Agenda.sessions": collectionItems, "Event.publishedAgenda": collectionItems,
	"SubmissionList.submissions": collectionItems, "SpeakerDirectory.rows": collectionItems,
	"Program.sessions": collectionItems, "ReviewRoundView.assignments": collectionItems,
	"ReviewRoundView.progress": collectionItems, "ReviewRoundView.results": collectionItems,
	"ReviewRoundView.submissions": collectionItems, "CrmPipelineColumn.cards": collectionItems,
	"CommunicationCenter.contacts": collectionItems, "CampaignHistory.recipients": collectionItems,
	"DecisionResult.submissions": collectionItems, "AgendaProposal.placements": collectionItems,
	"AutoDistributionResult.planned": collectionItems,
	"Query.myProposals":              collectionItems, "Query.myReviewAssignments": collectionItems,
	// A speaker's sessions of one event (SpeakerEvent.sessions) are a nested list: a handful.
	// An event has one or a few review rounds; a submission is reviewed by a few reviewers.
	"EvaluationWorkspace.rounds": 3, "ReviewResultRow.humanReviews": 5,
	// The tracks of a session list are the list's, read once, but the paged field charges its whole
	// selection per item: counted as one track, they still cost what the page's items cost.
	"SessionConnection.tracks": 1,
}

// scalarCosts are scalar fields that render a whole collection in one value.
var scalarCosts = map[string]int{
	// One CSV line of 13 columns per speaker.
	"SpeakerDirectory.csv": collectionItems * 13,
}

// costedSchema is the executable schema with list-aware complexity: gqlgen's walker asks it the
// cost of every field. Costs configured in Config.Complexity (Query.nodes) come first.
type costedSchema struct{ graphql.ExecutableSchema }

// Complexity returns the cost of one field given the cost of its selection.
func (s costedSchema) Complexity(ctx context.Context, typeName, field string, child int, args map[string]any) (int, bool) {
	if c, ok := s.ExecutableSchema.Complexity(ctx, typeName, field, child, args); ok {
		return c, true
	}
	def := s.Schema().Types[typeName]
	if def == nil {
		return 0, false
	}
	fd := def.Fields.ForName(field)
	if fd == nil {
		return 0, false
	}
	return fieldCost(typeName, fd, child, args), true
}

// fieldCost is the complexity of one field of typeName: 1 for itself plus its selection, its
// selection times the items of a list.
func fieldCost(typeName string, fd *ast.FieldDefinition, child int, args map[string]any) int {
	key := typeName + "." + fd.Name
	if c, ok := scalarCosts[key]; ok {
		return c
	}
	if strings.HasSuffix(typeName, "Connection") && (fd.Name == "edges" || fd.Name == "nodes") {
		return addCost(1, child) // the connection field counts the page's items
	}
	items := 1
	switch {
	case paged(fd):
		items = MaxPageSize
		if n, ok := pageArg(args, "first"); ok {
			items = n
		} else if n, ok := pageArg(args, "last"); ok {
			items = n
		}
	case fd.Type.Elem != nil && child > 0: // a list of objects
		items = nestedListItems
		if n, ok := listItems[key]; ok {
			items = n
		}
	}
	return addCost(1, mulCost(max(items, 1), child))
}

// paged reports whether a field takes first or last: a connection or a list read in pages.
func paged(fd *ast.FieldDefinition) bool {
	return fd.Arguments.ForName("first") != nil || fd.Arguments.ForName("last") != nil
}

// pageArg reads an Int argument, as given inline or by a variable.
func pageArg(args map[string]any, name string) (int, bool) {
	switch v := args[name].(type) {
	case int:
		return v, true
	case int64:
		return int(min(max(v, math.MinInt32), math.MaxInt32)), true
	case float64:
		return int(min(max(v, math.MinInt32), math.MaxInt32)), true
	case json.Number:
		n, err := v.Int64()
		if err != nil {
			return math.MaxInt32, true
		}
		return int(min(max(n, math.MinInt32), math.MaxInt32)), true
	}
	return 0, false
}

// addCost and mulCost saturate instead of overflowing, as gqlgen's walker does.
func addCost(a, b int) int {
	if a > math.MaxInt-b {
		return math.MaxInt
	}
	return a + b
}

func mulCost(a, b int) int {
	if a != 0 && b > math.MaxInt/a {
		return math.MaxInt
	}
	return a * b
}

// pageLimit refuses a first or last outside 0..MaxPageSize on any field that takes them, before
// anything runs: the complexity limit counts what a page may hold, and a page larger than any
// event's list would only make that count meaningless.
type pageLimit struct{}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationContextMutator
} = pageLimit{}

// ExtensionName names the extension.
func (pageLimit) ExtensionName() string { return "PodiumPageLimit" }

// Validate accepts any schema.
func (pageLimit) Validate(graphql.ExecutableSchema) error { return nil }

// MutateOperationContext checks every field of the operation, fragments followed.
func (pageLimit) MutateOperationContext(_ context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	if oc.Operation == nil {
		return nil
	}
	var bad *gqlerror.Error
	var walk func(set ast.SelectionSet, seen map[string]bool)
	walk = func(set ast.SelectionSet, seen map[string]bool) {
		for _, sel := range set {
			if bad != nil {
				return
			}
			switch s := sel.(type) {
			case *ast.Field:
				if s.Definition != nil && paged(s.Definition) {
					args := s.ArgumentMap(oc.Variables)
					for _, name := range []string{"first", "last"} {
						if n, ok := pageArg(args, name); ok && (n < 0 || n > MaxPageSize) {
							bad = gqlerror.Errorf("%s: %s must be between 0 and %d", s.Name, name, MaxPageSize)
							bad.Extensions = map[string]any{"code": apperr.CodeInvalidInput, "field": name, "max": MaxPageSize}
							return
						}
					}
				}
				walk(s.SelectionSet, seen)
			case *ast.InlineFragment:
				walk(s.SelectionSet, seen)
			case *ast.FragmentSpread:
				if seen[s.Name] || s.Definition == nil {
					continue
				}
				seen[s.Name] = true
				walk(s.Definition.SelectionSet, seen)
				delete(seen, s.Name)
			}
		}
	}
	walk(oc.Operation.SelectionSet, map[string]bool{})
	return bad
}

// errReadBudget is the cause of a query's context when its ReadBudget runs out.
var errReadBudget = apperr.New(http.StatusServiceUnavailable, apperr.CodeRequestTimeout,
	"The query ran out of its time budget; ask for less at a time")

// errStatementLimit answers an operation stopped by its statement cap.
func errStatementLimit(limit int64) *apperr.Error {
	return apperr.New(http.StatusUnprocessableEntity, apperr.CodeStatementLimitExceeded,
		fmt.Sprintf("The request needs more than %d SQL statements; ask for less at a time", limit))
}

// operationBudget gives each operation its statement cap and, for a query, its time budget
// (Limits.Statements, MutationStatements, ReadBudget). An operation stopped by either is answered
// with that one error and no data: what it read up to then is dropped rather than answered in
// part, and a mutation's transaction, inside this extension, rolls back.
type operationBudget struct{ limits Limits }

var _ interface {
	graphql.HandlerExtension
	graphql.ResponseInterceptor
} = operationBudget{}

// ExtensionName names the extension.
func (operationBudget) ExtensionName() string { return "PodiumOperationBudget" }

// Validate accepts any schema.
func (operationBudget) Validate(graphql.ExecutableSchema) error { return nil }

// InterceptResponse runs the operation within its budget.
func (b operationBudget) InterceptResponse(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	if !graphql.HasOperationContext(ctx) {
		return next(ctx)
	}
	op := graphql.GetOperationContext(ctx).Operation
	if op == nil {
		return next(ctx)
	}
	statements := b.limits.Statements
	if op.Operation == ast.Mutation {
		statements = b.limits.MutationStatements
	} else if b.limits.ReadBudget > 0 && op.Operation != ast.Subscription { // an event waits for its change
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, b.limits.ReadBudget, errReadBudget)
		defer cancel()
	}
	if statements > 0 {
		var cancel context.CancelFunc
		ctx, cancel = dbx.WithStatementLimit(ctx, statements)
		defer cancel()
	}
	resp := next(ctx)
	var stopped *apperr.Error
	switch cause := context.Cause(ctx); {
	case errors.Is(cause, dbx.ErrStatementLimit):
		stopped = errStatementLimit(statements)
	case errors.Is(cause, errReadBudget):
		stopped = errReadBudget
	}
	if stopped == nil || resp == nil {
		return resp
	}
	err := gqlerror.Errorf("%s", stopped.Message)
	err.Extensions = map[string]any{"code": stopped.Code}
	return &graphql.Response{Errors: gqlerror.List{err}, Extensions: resp.Extensions}
}

// answerCap refuses an answer whose data is larger than max bytes (Limits.AnswerBytes), with
// response_too_large and no data. It runs inside the mutation's transaction, which then rolls
// back: a client never misses the answer of a write that committed.
type answerCap struct{ max int }

var _ interface {
	graphql.HandlerExtension
	graphql.ResponseInterceptor
} = answerCap{}

// ExtensionName names the extension.
func (answerCap) ExtensionName() string { return "PodiumAnswerCap" }

// Validate accepts any schema.
func (answerCap) Validate(graphql.ExecutableSchema) error { return nil }

// InterceptResponse measures the answer.
func (c answerCap) InterceptResponse(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	resp := next(ctx)
	if resp == nil || c.max <= 0 || len(resp.Data) <= c.max {
		return resp
	}
	err := gqlerror.Errorf("The answer would be %d bytes, over the limit of %d; ask for less at a time", len(resp.Data), c.max)
	err.Extensions = map[string]any{"code": apperr.CodeResponseTooLarge, "bytes": len(resp.Data), "limit": c.max}
	return &graphql.Response{Errors: gqlerror.List{err}, Extensions: resp.Extensions}
}
