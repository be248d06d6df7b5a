package graph

import (
	"context"
	"net/http"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"

	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/graph/apperr"
)

// maxUploadsInFlight bounds each person's or key's multipart uploads at once (files.Limiter).
const maxUploadsInFlight = 2

// authorizeUpload judges a multipart request's operation before its files are read
// (files.Transport.Authorize): each root field must be one the caller's role may run
// (access.RootField), as it would be once the operation runs. The query must come in full: a
// persisted query's hash alone cannot be judged before the files arrive.
func authorizeUpload(ctx context.Context, params *graphql.RawParams) error {
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
		if err := rootFieldsAllowed(ctx, doc, object, op.SelectionSet, 0); err != nil {
			return err
		}
	}
	return nil
}

// rootFieldsAllowed applies access.RootField to the root fields of set, through fragments.
func rootFieldsAllowed(ctx context.Context, doc *ast.QueryDocument, object string, set ast.SelectionSet, depth int) error {
	if depth > 10 {
		return apperr.InvalidBody("%s", "The fragments of the multipart request's operation nest too deep")
	}
	for _, sel := range set {
		switch s := sel.(type) {
		case *ast.Field:
			if err := access.RootField(ctx, object, s.Name); err != nil {
				return err
			}
		case *ast.InlineFragment:
			if err := rootFieldsAllowed(ctx, doc, object, s.SelectionSet, depth+1); err != nil {
				return err
			}
		case *ast.FragmentSpread:
			if f := doc.Fragments.ForName(s.Name); f != nil {
				if err := rootFieldsAllowed(ctx, doc, object, f.SelectionSet, depth+1); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
