package graph

import (
	"context"
	"errors"
	"net/http"

	"github.com/podium/podium/graph/operation"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/dbx"
	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/graph/apperr"
)

// maxUploadsInFlight bounds each person's or key's multipart uploads at once (files.Limiter).
const maxUploadsInFlight = 2

// authorizeUpload judges a multipart request's operation before its files are read
// (files.Transport.Authorize): each root field must be one the caller's role may run
// (access.RootField), as it would be once the operation runs, and the object each upload field
// names must be one the caller may change (uploadTargets), so that another organization's id or
// another person's object is refused before a byte of the file is spooled. The query must come
// in full: a persisted query's hash alone cannot be judged before the files arrive.
func (r *Resolver) authorizeUpload(ctx context.Context, params *graphql.RawParams) error {
	if params.Query == "" {
		return apperr.InvalidBody("%s", "A multipart request carries its query in full")
	}
	doc, err := parser.ParseQuery(&ast.Source{Input: params.Query})
	if err != nil {
		return apperr.New(http.StatusBadRequest, apperr.CodeGraphQLParseFailed, "The query of the multipart request does not parse")
	}
	for _, op := range doc.Operations {
		if params.OperationName != "" && op.Name != params.OperationName {
			continue
		}
		object := "Query"
		if op.Operation != ast.Query {
			object = "Mutation"
		}
		fields, err := rootFields(doc, op.SelectionSet, nil, 0)
		if err != nil {
			return err
		}
		for _, f := range fields {
			if err := access.RootField(ctx, object, f.Name); err != nil {
				return err
			}
		}
		if op.Operation != ast.Mutation {
			continue
		}
		for _, f := range fields {
			if target := uploadTargets[f.Name]; target != nil {
				if err := target(ctx, r, argumentsOf(f, op, params.Variables)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// rootFields lists the root fields of set, through fragments.
func rootFields(doc *ast.QueryDocument, set ast.SelectionSet, out []*ast.Field, depth int) ([]*ast.Field, error) {
	if depth > 10 {
		return nil, apperr.InvalidBody("%s", "The fragments of the multipart request's operation nest too deep")
	}
	var err error
	for _, sel := range set {
		switch s := sel.(type) {
		case *ast.Field:
			out = append(out, s)
		case *ast.InlineFragment:
			out, err = rootFields(doc, s.SelectionSet, out, depth+1)
		case *ast.FragmentSpread:
			if f := doc.Fragments.ForName(s.Name); f != nil {
				out, err = rootFields(doc, f.SelectionSet, out, depth+1)
			}
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// uploadArgs are the arguments of a field, its variables resolved: the ids an upload field names.
type uploadArgs map[string]any

// argumentsOf resolves the arguments of f against the request's variables and the operation's
// defaults. The document is not validated yet: a value of the wrong type reads as "", which no
// check accepts.
func argumentsOf(f *ast.Field, op *ast.OperationDefinition, vars map[string]any) uploadArgs {
	out := uploadArgs{}
	for _, a := range f.Arguments {
		if a.Value == nil {
			continue
		}
		if a.Value.Kind != ast.Variable {
			out[a.Name] = a.Value.Raw
			continue
		}
		if v, ok := vars[a.Value.Raw]; ok {
			out[a.Name] = v
		} else if def := op.VariableDefinitions.ForName(a.Value.Raw); def != nil && def.DefaultValue != nil {
			out[a.Name] = def.DefaultValue.Raw
		}
	}
	return out
}

// id is the string argument name, or "" when it is missing or not a string.
func (a uploadArgs) id(name string) string {
	s, _ := a[name].(string)
	return s
}

// uploadTarget checks, before an upload's file is read, that the caller may change the object
// the upload field names. It makes the lookups the operation makes before it stores the file,
// so the refusal is the one the operation would give once the file was in.
type uploadTarget func(ctx context.Context, r *Resolver, args uploadArgs) error

// uploadTargets holds the check of every mutation field that takes an Upload
// (TestUploadTargetsCoverUploads holds them to the schema).
var uploadTargets = map[string]uploadTarget{
	"attachResourceFile": organizerTarget(func(ctx context.Context, c *ent.Client, a uploadArgs) error {
		ev, err := access.Event(ctx, c, a.id("eventId"))
		if err != nil {
			return err
		}
		_, err = operation.ResourceOf(ctx, c, ev.ID, a.id("resourceId"))
		return err
	}),
	"uploadEventImage": organizerTarget(func(ctx context.Context, c *ent.Client, a uploadArgs) error {
		_, err := access.Event(ctx, c, a.id("eventId"))
		return err
	}),
	"uploadSpeakerHeadshot": organizerTarget(func(ctx context.Context, c *ent.Client, a uploadArgs) error {
		ev, err := access.Event(ctx, c, a.id("eventId"))
		if err != nil {
			return err
		}
		_, err = operation.EventSpeakerForUpdate(ctx, c, ev.ID, a.id("contactId"))
		return err
	}),
	"uploadDeliverable": func(ctx context.Context, r *Resolver, a uploadArgs) error {
		return inRolledBack(ctx, r, func(ctx context.Context, c *ent.Client) error {
			_, err := r.Ops.Deliverable(ctx, c, a.id("eventId"), a.id("sessionId"), a.id("deliverableId"))
			return err
		})
	},
	"uploadMyDeliverable": func(ctx context.Context, r *Resolver, a uploadArgs) error {
		id := a.id("id")
		return r.Ops.OnMine(ctx, id, operation.ErrMyDeliverableNotFound, func(ctx context.Context, ct *ent.Contact) error {
			_, err := r.Ops.MyDeliverable(ctx, ct, id) // the lookup of setMyDeliverable
			return err
		}, func(context.Context, *ent.Contact) error { return nil })
	},
	"uploadMyHeadshot": func(ctx context.Context, r *Resolver, a uploadArgs) error {
		sctx, err := operation.OwnContactScope(ctx, operation.PersonOf(ctx), a.id("contactId"))
		if err != nil {
			return err
		}
		_, err = r.Ops.OwnContact(sctx, a.id("contactId"))
		return err
	},
}

// organizerTarget is a check of an organizer's upload, run as uploadDeliverable's is.
func organizerTarget(check func(ctx context.Context, c *ent.Client, a uploadArgs) error) uploadTarget {
	return func(ctx context.Context, r *Resolver, a uploadArgs) error {
		return inRolledBack(ctx, r, func(ctx context.Context, c *ent.Client) error { return check(ctx, c, a) })
	}
}

// inRolledBack runs a check in a transaction it rolls back: the lookups the operation makes lock
// the rows they read (FOR UPDATE), which the check has no reason to hold.
func inRolledBack(ctx context.Context, r *Resolver, check func(ctx context.Context, c *ent.Client) error) error {
	if r == nil || r.Ops.DB == nil {
		return errors.New("graph: upload checks need the database")
	}
	tx, err := r.Ops.DB.Begin(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	ctx = dbx.NewContext(ctx, tx)
	return check(ctx, tx.Ent())
}
