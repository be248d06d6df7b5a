package graph

import (
	"context"
	"errors"
	"math"
	"net/http"
	"unicode/utf8"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/lexer"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"
	"github.com/vektah/gqlparser/v2/validator/rules"

	"github.com/podium/podium/graph/apperr"
)

// DocumentLimits bound the size of one GraphQL document. They are checked on the parsed document
// before it is validated, because validation is where a document costs: gqlparser compares the
// fields of a selection set pair by pair to prove they can be merged, so a body of repeated
// fields far under the 1 MiB body limit keeps a core busy for minutes, and every repeated
// directive, argument or unused definition adds an error to the answer. The depth, alias and
// complexity limits only apply once a document is valid, too late for either. Zero means no
// limit.
type DocumentLimits struct {
	// Tokens caps the lexical tokens of the document (names, punctuation, values); the parser
	// stops reading at the limit, so a huge document costs no more than a document of this size.
	Tokens int
	// Operations caps the operations in the document (one runs, chosen by operationName).
	Operations int
	// Fragments caps the fragment definitions.
	Fragments int
	// Selections caps fields, fragment spreads and inline fragments, counted where they are
	// written (a spread counts once, not the size of its fragment).
	Selections int
	// Fields caps the field selections, the unit validation compares pair by pair.
	Fields int
	// ExpandedFields caps the fields of the document's operations with every fragment spread
	// replaced by its fragment: ten fragments that each spread the one before twice are a
	// hundred tokens but a thousand fields, and a few more levels are beyond any machine.
	ExpandedFields int
	// Directives caps the directives (@include, @skip, …) anywhere in the document.
	Directives int
	// Variables caps the variable definitions.
	Variables int
	// Arguments caps the arguments of fields and directives, each item of a list and each field
	// of an object written inline counting as one more.
	Arguments int
	// NameBytes caps the length of each name in the document (fields, aliases, arguments,
	// variables, fragments, directives, types, enum values): validation compares a name it does
	// not know with every name it could have meant, to suggest one, at a cost that grows with
	// the name's length times the schema's size.
	NameBytes int
}

// documentLimit parses and bounds each new document before gqlgen validates it (see
// DocumentLimits). gqlgen has no hook between parsing and validation, so it does both here, once:
// a document that passes is validated with gqlgen's default rules and put in the query cache,
// where gqlgen finds it already parsed and validated. Only a document gqlgen will refuse anyway
// (a validation error) is parsed and validated again by gqlgen, to report its errors in gqlgen's
// words; the limits keep that second pass small.
type documentLimit struct {
	limits DocumentLimits
	schema *ast.Schema
	cache  graphql.Cache[*ast.QueryDocument]
}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationParameterMutator
} = documentLimit{}

// ExtensionName names the extension.
func (documentLimit) ExtensionName() string { return "PodiumDocumentLimit" }

// Validate accepts any schema.
func (documentLimit) Validate(graphql.ExecutableSchema) error { return nil }

// MutateOperationParameters refuses a document over a limit. It runs before automatic persisted
// queries, so a refused document is never stored there either; a request carrying only a hash
// names a document that passed here when it was stored.
func (l documentLimit) MutateOperationParameters(ctx context.Context, params *graphql.RawParams) *gqlerror.Error {
	if params.Query == "" {
		return nil
	}
	if _, ok := l.cache.Get(ctx, params.Query); ok {
		return nil
	}
	if err := ctx.Err(); err != nil {
		// The client left or the budget ran out while the request waited: parse nothing.
		return budgetError(err)
	}
	doc, err := parser.ParseQueryWithTokenLimit(&ast.Source{Input: params.Query}, l.limits.Tokens)
	if err != nil {
		if l.limits.Tokens > 0 && tokensExceed(params.Query, l.limits.Tokens) {
			return documentError("The document has more than %d tokens", l.limits.Tokens)
		}
		var gqlErr *gqlerror.Error
		if !errors.As(err, &gqlErr) {
			gqlErr = gqlerror.Errorf("%s", err)
		}
		errcode.Set(gqlErr, errcode.ParseFailed)
		return gqlErr
	}
	if err := l.limits.check(countDocument(doc, l.limits.ExpandedFields)); err != nil {
		return err
	}
	if len(doc.Operations) == 0 {
		return nil // gqlgen answers "no operation provided"
	}
	if err := ctx.Err(); err != nil {
		return budgetError(err)
	}
	if errs := validator.ValidateWithRules(l.schema, doc, rules.NewDefaultRules()); len(errs) == 0 {
		l.cache.Add(ctx, params.Query, doc)
	}
	return nil
}

// tokensExceed reports whether query has more than limit tokens. It runs only for a document
// that failed to parse, to tell the token limit from a syntax error.
func tokensExceed(query string, limit int) bool {
	lex := lexer.New(&ast.Source{Input: query})
	for n := 0; n <= limit; n++ {
		tok, err := lex.ReadToken()
		if err != nil || tok.Kind == lexer.EOF {
			return false
		}
	}
	return true
}

// documentCount is what DocumentLimits caps, counted in one document.
type documentCount struct {
	operations, fragments, selections, fields, expandedFields, directives, variables, arguments int
	// longestName is the length in bytes of the document's longest name.
	longestName int
}

// check refuses a count over a limit, naming the first one exceeded.
func (l DocumentLimits) check(c documentCount) *gqlerror.Error {
	for _, x := range []struct {
		n, limit int
		what     string
	}{
		{c.operations, l.Operations, "operations"},
		{c.fragments, l.Fragments, "fragment definitions"},
		{c.selections, l.Selections, "selections"},
		{c.fields, l.Fields, "fields"},
		{c.expandedFields, l.ExpandedFields, "fields once its fragments are expanded"},
		{c.directives, l.Directives, "directives"},
		{c.variables, l.Variables, "variable definitions"},
		{c.arguments, l.Arguments, "arguments"},
	} {
		if x.limit > 0 && x.n > x.limit {
			return documentError("The document has %d %s; the limit is %d", x.n, x.what, x.limit)
		}
	}
	if l.NameBytes > 0 && c.longestName > l.NameBytes {
		return documentError("The document has a name of %d bytes; the limit is %d", c.longestName, l.NameBytes)
	}
	return nil
}

// countDocument counts what DocumentLimits caps; the count of expanded fields stops a little past
// expandedLimit (when it is not 0). The parser bounds nesting, so the recursion is bounded too.
func countDocument(doc *ast.QueryDocument, expandedLimit int) documentCount {
	var c documentCount
	name := func(names ...string) {
		for _, n := range names {
			c.longestName = max(c.longestName, len(n))
		}
	}
	var value func(v *ast.Value)
	value = func(v *ast.Value) {
		if v == nil {
			return
		}
		if v.Kind == ast.Variable || v.Kind == ast.EnumValue {
			name(v.Raw)
		}
		for _, child := range v.Children {
			c.arguments++
			name(child.Name)
			value(child.Value)
		}
	}
	arguments := func(list ast.ArgumentList) {
		c.arguments += len(list)
		for _, a := range list {
			name(a.Name)
			value(a.Value)
		}
	}
	directives := func(list ast.DirectiveList) {
		c.directives += len(list)
		for _, d := range list {
			name(d.Name)
			arguments(d.Arguments)
		}
	}
	var selections func(set ast.SelectionSet)
	selections = func(set ast.SelectionSet) {
		c.selections += len(set)
		for _, sel := range set {
			switch s := sel.(type) {
			case *ast.Field:
				c.fields++
				name(s.Name, s.Alias)
				arguments(s.Arguments)
				directives(s.Directives)
				selections(s.SelectionSet)
			case *ast.FragmentSpread:
				name(s.Name)
				directives(s.Directives)
			case *ast.InlineFragment:
				name(s.TypeCondition)
				directives(s.Directives)
				selections(s.SelectionSet)
			}
		}
	}
	c.operations = len(doc.Operations)
	for _, op := range doc.Operations {
		name(op.Name)
		c.variables += len(op.VariableDefinitions)
		for _, v := range op.VariableDefinitions {
			name(v.Variable)
			for t := v.Type; t != nil; t = t.Elem {
				name(t.NamedType)
			}
			directives(v.Directives)
			value(v.DefaultValue)
		}
		directives(op.Directives)
		selections(op.SelectionSet)
	}
	c.fragments = len(doc.Fragments)
	for _, f := range doc.Fragments {
		name(f.Name, f.TypeCondition)
		directives(f.Directives)
		selections(f.SelectionSet)
	}
	c.expandedFields = expandedFields(doc, expandedLimit)
	return c
}

// expandedFields counts the fields of doc's operations with each fragment spread replaced by its
// fragment, each fragment counted once and remembered, so the count costs no more than the
// document's size however large the expansion. Past limit (when not 0) it stops counting. A
// spread of an unknown fragment, or one that spreads itself, counts nothing: validation refuses
// the document for it.
func expandedFields(doc *ast.QueryDocument, limit int) int {
	ceiling := math.MaxInt / 2
	if limit > 0 {
		ceiling = limit + 1
	}
	add := func(a, b int) int { return min(a+b, ceiling) }
	fragments := make(map[string]*ast.FragmentDefinition, len(doc.Fragments))
	for _, f := range doc.Fragments {
		fragments[f.Name] = f
	}
	sizes := map[string]int{}
	visiting := map[string]bool{}
	var size func(set ast.SelectionSet) int
	size = func(set ast.SelectionSet) int {
		n := 0
		for _, sel := range set {
			switch s := sel.(type) {
			case *ast.Field:
				n = add(n, add(1, size(s.SelectionSet)))
			case *ast.InlineFragment:
				n = add(n, size(s.SelectionSet))
			case *ast.FragmentSpread:
				f, ok := sizes[s.Name]
				if !ok && !visiting[s.Name] && fragments[s.Name] != nil {
					visiting[s.Name] = true
					f = size(fragments[s.Name].SelectionSet)
					delete(visiting, s.Name)
					sizes[s.Name] = f
				}
				n = add(n, f)
			}
			if n == ceiling {
				return n
			}
		}
		return n
	}
	total := 0
	for _, op := range doc.Operations {
		total = add(total, size(op.SelectionSet))
	}
	return total
}

// documentError is a document refused for its size, with its code (answered 422, as gqlgen
// answers a document it cannot parse).
func documentError(format string, args ...any) *gqlerror.Error {
	err := gqlerror.Errorf(format, args...)
	errcode.Set(err, apperr.CodeGraphQLDocumentTooLarge)
	return err
}

func init() {
	errcode.RegisterErrorType(apperr.CodeGraphQLDocumentTooLarge, errcode.KindProtocol)
}

// budgetError is the answer to a request whose context ended before its document was read.
func budgetError(err error) *gqlerror.Error {
	e := contextError(err)
	return &gqlerror.Error{Message: e.Message, Err: e}
}

// contextError is what a request whose context ended is answered: its time budget ran out
// (Limits.Budget), or its client went away and nobody reads the answer.
func contextError(err error) *apperr.Error {
	if errors.Is(err, context.DeadlineExceeded) {
		return apperr.New(http.StatusServiceUnavailable, apperr.CodeRequestTimeout,
			"The request ran out of its time budget; ask for less at a time")
	}
	return apperr.New(http.StatusServiceUnavailable, apperr.CodeRequestCanceled, "The request was canceled")
}

// errorCap bounds the errors of one response: at most max errors, each message at most
// messageBytes long, and a last error saying how many were left out. A document with thousands of
// mistakes — each repeated directive, each unknown field, each failing item of a list is one
// error — would otherwise answer with a body many times larger than the request, and a message
// may quote a name or value of the request at any length.
type errorCap struct{ max, messageBytes int }

var _ interface {
	graphql.HandlerExtension
	graphql.ResponseInterceptor
} = errorCap{}

// ExtensionName names the extension.
func (errorCap) ExtensionName() string { return "PodiumErrorCap" }

// Validate accepts any schema.
func (errorCap) Validate(graphql.ExecutableSchema) error { return nil }

// InterceptResponse caps the response's errors.
func (c errorCap) InterceptResponse(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	resp := next(ctx)
	if resp == nil {
		return nil
	}
	if c.max > 0 && len(resp.Errors) > c.max {
		left := len(resp.Errors) - (c.max - 1)
		more := gqlerror.Errorf("%d more errors were left out; fix the ones above and send the document again", left)
		more.Extensions = map[string]any{"code": apperr.CodeTooManyErrors, "omitted": left}
		resp.Errors = append(resp.Errors[:c.max-1:c.max-1], more)
	}
	if c.messageBytes > 0 {
		for _, e := range resp.Errors {
			if len(e.Message) > c.messageBytes {
				e.Message = truncateUTF8(e.Message, c.messageBytes) + "…"
			}
		}
	}
	return resp
}

// truncateUTF8 cuts s to at most n bytes without splitting a character.
func truncateUTF8(s string, n int) string {
	for n > 0 && n < len(s) && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
