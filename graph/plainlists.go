package graph

import (
	"context"
	"io"

	"github.com/podium/podium/graph/model"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/podium/podium/ent/schema/agenda"
	"github.com/podium/podium/graph/scalar"
)

// plainLists writes the edges of the session board without gqlgen's per-field execution when
// the query asks for nothing but plain fields of them.
//
// gqlgen executes every field of every list element on its own: a goroutine per element, a field
// context, a middleware chain, a boxed value and a marshaler per field. A board of thousands of
// sessions is a hundred thousand such fields per request, and cost several times the CPU of the
// REST list that carries the same data (docs/performance.md). Yet nearly all of these fields are
// plain struct fields of read models already in memory: nothing can fail, block or need a
// resolver.
//
// gqlgen lets a field's middleware return a graphql.Marshaler in place of the field's value, and
// writes it as the field's JSON. plainLists uses that for SessionConnection.edges: when every
// field selected under the edges — after gqlgen's own field collection, so fragments, aliases,
// @skip and @include count as in gqlgen — is a plain field (see sessionFields and friends), it
// answers a marshaler that writes the edges directly, with the same scalar marshalers and the same
// object and list framing as gqlgen's generated code, so the bytes are the same. A selection with
// any other field (a resolver such as tasks or submission), or with @defer, is left to gqlgen as
// before. The GraphQL schema, the results and the errors do not change; only the work does.
type plainLists struct{}

var _ interface {
	graphql.HandlerExtension
	graphql.FieldInterceptor
} = plainLists{}

// ExtensionName names the extension.
func (plainLists) ExtensionName() string { return "PlainLists" }

// Validate accepts any schema.
func (plainLists) Validate(graphql.ExecutableSchema) error { return nil }

// InterceptField resolves SessionConnection.edges as usual, then answers a direct marshaler when
// the selection under it is plain.
func (plainLists) InterceptField(ctx context.Context, next graphql.Resolver) (any, error) {
	res, err := next(ctx)
	fc := graphql.GetFieldContext(ctx)
	if err != nil || fc == nil || fc.Object != "SessionConnection" || fc.Field.Name != "edges" {
		return res, err
	}
	edges, ok := res.([]*model.SessionEdge)
	if !ok {
		return res, err
	}
	plan, ok := planEdges(graphql.GetOperationContext(ctx), fc.Field.Selections)
	if !ok {
		return res, err
	}
	return plainEdges{edges: edges, plan: plan}, nil
}

// writer writes one selected field of a T.
type writer[T any] struct {
	// key is the field's response key, quoted, with its colon.
	key   []byte
	write func(w io.Writer, v T)
}

// writeObject writes v as gqlgen writes an object: {"key":value,...} in selection order.
func writeObject[T any](w io.Writer, plan []writer[T], v T) {
	_, _ = w.Write(openBrace)
	for i, f := range plan {
		if i > 0 {
			_, _ = w.Write(comma)
		}
		_, _ = w.Write(f.key)
		f.write(w, v)
	}
	_, _ = w.Write(closeBrace)
}

// writeList writes vs as gqlgen writes a list: [a,b,...].
func writeList[T any](w io.Writer, plan []writer[T], vs []T) {
	_, _ = w.Write(openBracket)
	for i, v := range vs {
		if i > 0 {
			_, _ = w.Write(comma)
		}
		writeObject(w, plan, v)
	}
	_, _ = w.Write(closeBracket)
}

var (
	openBrace    = []byte{'{'}
	closeBrace   = []byte{'}'}
	openBracket  = []byte{'['}
	closeBracket = []byte{']'}
	comma        = []byte{','}
	null         = []byte("null")
)

// plan collects sel as gqlgen does for an object of the given implementors and builds a writer
// for each field with fields; ok is false when a field is not plain or is deferred.
func plan[T any](oc *graphql.OperationContext, sel ast.SelectionSet, implementors []string, typeName string,
	fields func(oc *graphql.OperationContext, f graphql.CollectedField) (func(io.Writer, T), bool)) ([]writer[T], bool) {
	collected := graphql.CollectFields(oc, sel, implementors)
	out := make([]writer[T], 0, len(collected))
	seen := make(map[string]bool, len(collected))
	for _, f := range collected {
		if len(f.Deferrables) > 0 {
			return nil, false
		}
		if seen[f.Alias] { // gqlgen writes a response key once
			continue
		}
		seen[f.Alias] = true
		var write func(io.Writer, T)
		if f.Name == "__typename" {
			name := graphql.MarshalString(typeName)
			write = func(w io.Writer, _ T) { name.MarshalGQL(w) }
		} else {
			var ok bool
			if write, ok = fields(oc, f); !ok {
				return nil, false
			}
		}
		var key writerBuffer
		graphql.MarshalString(f.Alias).MarshalGQL(&key)
		key = append(key, ':')
		out = append(out, writer[T]{key: key, write: write})
	}
	return out, true
}

// writerBuffer is an io.Writer appending to a byte slice.
type writerBuffer []byte

func (b *writerBuffer) Write(p []byte) (int, error) {
	*b = append(*b, p...)
	return len(p), nil
}

// plainEdges writes a page of session edges with a plan.
type plainEdges struct {
	edges []*model.SessionEdge
	plan  []writer[*model.SessionEdge]
}

// MarshalGQL writes the edges.
func (e plainEdges) MarshalGQL(w io.Writer) { writeList(w, e.plan, e.edges) }

func planEdges(oc *graphql.OperationContext, sel ast.SelectionSet) ([]writer[*model.SessionEdge], bool) {
	return plan(oc, sel, sessionEdgeImplementors, "SessionEdge", func(oc *graphql.OperationContext, f graphql.CollectedField) (func(io.Writer, *model.SessionEdge), bool) {
		switch f.Name {
		case "cursor":
			return func(w io.Writer, e *model.SessionEdge) { scalar.MarshalCursor(e.Cursor).MarshalGQL(w) }, true
		case "node":
			node, ok := plan(oc, f.Selections, sessionImplementors, "Session", sessionField)
			if !ok {
				return nil, false
			}
			return func(w io.Writer, e *model.SessionEdge) { writeObject(w, node, e.Node) }, true
		}
		return nil, false
	})
}

// sessionField writes the plain fields of Session: those read from the struct, not resolved.
func sessionField(oc *graphql.OperationContext, f graphql.CollectedField) (func(io.Writer, *model.Session), bool) {
	switch f.Name {
	case "id":
		return func(w io.Writer, s *model.Session) { scalar.MarshalID(s.ID).MarshalGQL(w) }, true
	case "eventId":
		return func(w io.Writer, s *model.Session) { scalar.MarshalID(s.EventID).MarshalGQL(w) }, true
	case "code":
		return func(w io.Writer, s *model.Session) { scalar.MarshalString(s.Code).MarshalGQL(w) }, true
	case "title":
		return func(w io.Writer, s *model.Session) { scalar.MarshalString(s.Title).MarshalGQL(w) }, true
	case "description":
		return func(w io.Writer, s *model.Session) { scalar.MarshalString(s.Description).MarshalGQL(w) }, true
	case "format":
		return func(w io.Writer, s *model.Session) { writeOptString(w, s.Format) }, true
	case "source":
		return func(w io.Writer, s *model.Session) { s.Source.MarshalGQL(w) }, true
	case "tracks":
		tracks, ok := plan(oc, f.Selections, trackSummaryImplementors, "TrackSummary", trackField)
		return func(w io.Writer, s *model.Session) { writeList(w, tracks, s.Tracks) }, ok
	case "speakers":
		speakers, ok := plan(oc, f.Selections, sessionSpeakerImplementors, "SessionSpeaker", speakerField)
		return func(w io.Writer, s *model.Session) { writeList(w, speakers, s.Speakers) }, ok
	case "startsAt":
		return func(w io.Writer, s *model.Session) { writeOptTime(w, s.StartsAt) }, true
	case "endsAt":
		return func(w io.Writer, s *model.Session) { writeOptTime(w, s.EndsAt) }, true
	case "roomId":
		return func(w io.Writer, s *model.Session) { writeOptID(w, s.RoomID) }, true
	case "roomName":
		return func(w io.Writer, s *model.Session) { writeOptString(w, s.RoomName) }, true
	case "deliverablesTotal":
		return func(w io.Writer, s *model.Session) { scalar.MarshalInt(s.DeliverablesTotal).MarshalGQL(w) }, true
	case "deliverablesUploaded":
		return func(w io.Writer, s *model.Session) { scalar.MarshalInt(s.DeliverablesUploaded).MarshalGQL(w) }, true
	case "tasksTotal":
		return func(w io.Writer, s *model.Session) { scalar.MarshalInt(s.TasksTotal).MarshalGQL(w) }, true
	case "tasksDone":
		return func(w io.Writer, s *model.Session) { scalar.MarshalInt(s.TasksDone).MarshalGQL(w) }, true
	case "contentReviewStatus":
		return func(w io.Writer, s *model.Session) { s.ContentReviewStatus.MarshalGQL(w) }, true
	case "publicationApproved":
		return func(w io.Writer, s *model.Session) { scalar.MarshalBoolean(s.PublicationApproved).MarshalGQL(w) }, true
	case "cancelledAt":
		return func(w io.Writer, s *model.Session) { writeOptTime(w, s.CancelledAt) }, true
	case "cancelledBy":
		return func(w io.Writer, s *model.Session) {
			if s.CancelledBy == nil {
				_, _ = w.Write(null)
				return
			}
			s.CancelledBy.MarshalGQL(w)
		}, true
	case "capacity":
		return func(w io.Writer, s *model.Session) { writeOptInt(w, s.Capacity) }, true
	case "createdAt":
		return func(w io.Writer, s *model.Session) { s.CreatedAt.MarshalGQL(w) }, true
	}
	return nil, false
}

// speakerField writes the fields of SessionSpeaker, all plain.
func speakerField(_ *graphql.OperationContext, f graphql.CollectedField) (func(io.Writer, *model.SessionSpeaker), bool) {
	switch f.Name {
	case "id":
		return func(w io.Writer, s *model.SessionSpeaker) { scalar.MarshalID(s.ID).MarshalGQL(w) }, true
	case "name":
		return func(w io.Writer, s *model.SessionSpeaker) { scalar.MarshalString(s.Name).MarshalGQL(w) }, true
	case "email":
		return func(w io.Writer, s *model.SessionSpeaker) { scalar.MarshalString(s.Email).MarshalGQL(w) }, true
	case "role":
		return func(w io.Writer, s *model.SessionSpeaker) { scalar.MarshalString(s.Role).MarshalGQL(w) }, true
	case "position":
		return func(w io.Writer, s *model.SessionSpeaker) { scalar.MarshalInt(s.Position).MarshalGQL(w) }, true
	case "headshotUrl":
		return func(w io.Writer, s *model.SessionSpeaker) { writeOptString(w, s.HeadshotURL) }, true
	case "confirmedAt":
		return func(w io.Writer, s *model.SessionSpeaker) { writeOptTime(w, s.ConfirmedAt) }, true
	}
	return nil, false
}

// trackField writes the fields of TrackSummary, all plain.
func trackField(_ *graphql.OperationContext, f graphql.CollectedField) (func(io.Writer, agenda.Track), bool) {
	switch f.Name {
	case "id":
		return func(w io.Writer, t agenda.Track) { scalar.MarshalID(t.ID).MarshalGQL(w) }, true
	case "name":
		return func(w io.Writer, t agenda.Track) { scalar.MarshalString(t.Name).MarshalGQL(w) }, true
	case "color":
		return func(w io.Writer, t agenda.Track) { scalar.MarshalString(t.Color).MarshalGQL(w) }, true
	}
	return nil, false
}

func writeOptString(w io.Writer, s *string) {
	if s == nil {
		_, _ = w.Write(null)
		return
	}
	scalar.MarshalString(*s).MarshalGQL(w)
}

func writeOptID(w io.Writer, s *string) {
	if s == nil {
		_, _ = w.Write(null)
		return
	}
	scalar.MarshalID(*s).MarshalGQL(w)
}

func writeOptInt(w io.Writer, n *int) {
	if n == nil {
		_, _ = w.Write(null)
		return
	}
	scalar.MarshalInt(*n).MarshalGQL(w)
}

func writeOptTime(w io.Writer, t *scalar.Timestamp) {
	if t == nil {
		_, _ = w.Write(null)
		return
	}
	t.MarshalGQL(w)
}
