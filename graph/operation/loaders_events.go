package operation

import (
	"context"
	"sync"

	"github.com/podium/podium/graph/model"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vikstrous/dataloadgen"

	"github.com/podium/podium/ent"
)

// eventLoaders read the read models of a page of events — Event.submissions, .sessions,
// .speakers, .emails — for all of the page's events at once: a page of 30 events costs the
// statements of one. They are used only when the event is an item of a list (underList): an event
// read alone keeps its own path, whose statements are shaped for one event (sent at once on
// several connections, skipped when a page holds the whole list).
//
// The zero value is ready: the loaders are made on first use, so that the request's loaders
// carry them without a line in newLoaders.
type eventLoaders struct {
	once sync.Once
	// submissions are the call-for-proposals submissions of each event (Event.submissions),
	// filtered by status in Go, as the single path does.
	submissions *dataloadgen.Loader[string, []*model.Submission]
	// speakers, emails and sessions are connections: a page of each event, keyed by the event
	// and the field asking (fieldArgs), whose arguments are the same for every event.
	speakers *dataloadgen.Loader[eventPageKey, *pageOf[*ent.Contact]]
	emails   *dataloadgen.Loader[eventPageKey, *pageOf[*ent.EmailLog]]
	sessions *dataloadgen.Loader[eventPageKey, *sessionPageOf]
	// args interns each field's arguments, by the field of the document (*ast.Field): the
	// batch function reads them from the key.
	args sync.Map
}

// eventPageKey names a page of one event's connection: the event, and the arguments of the field
// that asks for it, interned (fieldArgs) so that the pages of one field are read together.
type eventPageKey struct {
	event string
	args  any
}

// eventLoaders returns the request's event loaders, made on first use.
func (r *Service) eventLoaders(ctx context.Context) *eventLoaders {
	l := &r.loaders(ctx).events
	l.once.Do(func() {
		wait := dataloadgen.WithWait(loaderWait)
		l.submissions = dataloadgen.NewMappedLoader(func(ctx context.Context, events []string) (map[string][]*model.Submission, error) {
			subs, err := r.eventsSubmissions(ctx, events, submissionFilter{})
			if err != nil {
				return nil, err
			}
			out := group(subs, func(s *model.Submission) string { return s.EventID })
			for _, id := range events {
				out[id] = nonNilSlice(out[id])
			}
			return out, nil
		}, wait)
		l.speakers = dataloadgen.NewMappedLoader(r.eventsSpeakers, wait)
		l.emails = dataloadgen.NewMappedLoader(r.eventsEmails, wait)
		l.sessions = dataloadgen.NewMappedLoader(r.eventsSessions, wait)
	})
	return l
}

// fieldArgs interns the arguments of the field being resolved: every event of a page asks with
// the same field of the document, whose arguments — literals and the operation's variables —
// are the same for each, so the first event's are kept and the others get them back. Outside
// GraphQL, args is returned as is.
func (l *eventLoaders) fieldArgs(ctx context.Context, args any) any {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil {
		return args
	}
	v, _ := l.args.LoadOrStore(fc.Field.Field, args)
	return v
}

// underList reports whether the field being resolved is under an item of a list — an event of
// a page of events — where a loader reads it with its siblings. Outside GraphQL it reports false,
// and in a mutation too: a loader keeps what it read for the rest of the request, and a
// mutation's later fields must see what its earlier ones wrote.
func underList(ctx context.Context) bool {
	if !graphql.HasOperationContext(ctx) {
		return false
	}
	if op := graphql.GetOperationContext(ctx).Operation; op == nil || op.Operation != ast.Query {
		return false
	}
	fc := graphql.GetFieldContext(ctx)
	return fc != nil && InList(fc)
}

// loadEvent loads key, that of the event being resolved, after asking at once for keyOf of every
// event of its list (listEvents): a loader batches what is asked within loaderWait of its first
// key, and the events of a list resolve on goroutines of their own, which a busy machine may
// start later than that. Asking for the list's keys together puts them all in the first batch;
// the others find theirs there. Each key answers its own value or error.
func loadEvent[K comparable, V any](ctx context.Context, l *dataloadgen.Loader[K, V], key K, keyOf func(event string) K) (V, error) {
	if events := listEvents(ctx); len(events) > 1 {
		_, _ = l.LoadAll(ctx, mapAll(events, keyOf))
	}
	return l.Load(ctx, key)
}

// listEvents are the ids of the events of the list the field being resolved is under — a page of
// events (their edges) or Query.nodes —, read from the list's value; nil for other lists.
func listEvents(ctx context.Context) []string {
	for fc := graphql.GetFieldContext(ctx); fc != nil; fc = fc.Parent {
		if fc.Index == nil {
			continue
		}
		if fc.Parent == nil {
			return nil
		}
		var out []string
		switch list := fc.Parent.Result.(type) {
		case []*ent.EventEdge:
			for _, e := range list {
				if e != nil && e.Node != nil {
					out = append(out, e.Node.ID)
				}
			}
		case []ent.Noder:
			for _, n := range list {
				if ev, ok := n.(*ent.Event); ok && ev != nil {
					out = append(out, ev.ID)
				}
			}
		}
		return out
	}
	return nil
}

// InList reports whether a field belongs to an item of a list.
func InList(fc *graphql.FieldContext) bool {
	for _, p := range fc.Path() {
		if _, ok := p.(ast.PathIndex); ok {
			return true
		}
	}
	return false
}
