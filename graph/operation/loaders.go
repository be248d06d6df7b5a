package operation

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/podium/podium/graph/model"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vikstrous/dataloadgen"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/contact"
	"github.com/podium/podium/ent/decisionsend"
	"github.com/podium/podium/ent/deliverableassignment"
	"github.com/podium/podium/ent/filerequirement"
	"github.com/podium/podium/ent/taskassignment"
	"github.com/podium/podium/ent/tasktemplate"
)

// loaders batch the edges GraphQL navigates from list items (a session's contacts, tasks,
// deliverables and submission), so that a page of sessions costs the same number of queries
// whatever its length. They live for one request: GraphQL requests get theirs in NewHandler;
// other callers get fresh ones.
type loaders struct {
	contacts     *dataloadgen.Loader[string, *ent.Contact]
	tasks        *dataloadgen.Loader[string, []*model.Task]
	deliverables *dataloadgen.Loader[string, []*model.Deliverable]
	submissions  *dataloadgen.Loader[eventItem, *model.Submission]
	// rounds index review rounds by id, for assignments read without their workspace.
	rounds *dataloadgen.Loader[string, *model.RoundIndex]
	// activity, emails and roundReviews are the lists of a submission (Submission.activity,
	// .emails, .roundReviews); contactResources the resources a contact sees (Contact.resources).
	activity     *dataloadgen.Loader[eventItem, []*model.TimelineItem]
	emails       *dataloadgen.Loader[string, []*model.SubmissionEmail]
	roundReviews *dataloadgen.Loader[string, []*model.HumanReview]
	// quickReviews are each submission's quick reviews (Submission.reviews).
	quickReviews     *dataloadgen.Loader[string, []*model.QuickReview]
	contactResources *dataloadgen.Loader[eventItem, []*model.ResourceRecord]
	// taskTemplates, fileRequirements and resources are lists of an event (Event.taskTemplates,
	// .fileRequirements, .resources), read together for a page of events.
	taskTemplates    *dataloadgen.Loader[string, []*model.TaskTemplate]
	fileRequirements *dataloadgen.Loader[string, []*model.FileRequirement]
	resources        *dataloadgen.Loader[string, []*model.ResourceRecord]
	// reviewerTracks are the members of an event with their reviewer tracks (Event.reviewerTracks).
	reviewerTracks *dataloadgen.Loader[string, []*model.ReviewerTrackSet]
	// eventModels are the read models of an event (Event.agenda, .forms, …), for a page of events.
	eventModels *eventModels
	// events read the read models of a page of events together (loaders_events.go).
	events eventLoaders
	// availability is each contact's availability (Contact.availability, availability.go).
	availability availabilityLoaders
	// agendaVersions are the published versions of each event's agenda (Agenda.versions).
	agendaVersions *dataloadgen.Loader[string, []*model.AgendaVersionSummary]
	// pipelines are contacts' speaker pipelines (Contact.pipeline, speaker_pipeline.go).
	pipelines *dataloadgen.Loader[string, *model.SpeakerPipeline]
	// decisionSends are each event's decision sends (Event.decisionSends), chaserPlans its planned
	// chasers as of the request (Event.chaserPreview), for a page of events together.
	decisionSends *dataloadgen.Loader[string, []*ent.DecisionSend]
	chaserPlans   *dataloadgen.Loader[string, []plannedChaser]
}

// eventItem names an item of an event.
type eventItem struct{ event, id string }

// loaderWait is how long a loader collects keys before querying: long enough for the sibling
// fields of a list to ask, short enough not to be felt.
const loaderWait = time.Millisecond

type loadersKey struct{}

// WithLoaders returns ctx with fresh loaders.
func (r *Service) WithLoaders(ctx context.Context) context.Context {
	return context.WithValue(ctx, loadersKey{}, r.newLoaders())
}

func (r *Service) loaders(ctx context.Context) *loaders {
	if l, ok := ctx.Value(loadersKey{}).(*loaders); ok {
		return l
	}
	return r.newLoaders()
}

func (r *Service) newLoaders() *loaders {
	wait := dataloadgen.WithWait(loaderWait)
	return &loaders{
		eventModels: r.newEventModels(wait),
		taskTemplates: eventLists(func(ctx context.Context, events []string) ([]*model.TaskTemplate, error) {
			rows, err := r.ClientOf(ctx).TaskTemplate.Query().Where(tasktemplate.EventIDIn(events...)).
				Order(ent.Asc(tasktemplate.FieldPosition), ent.Asc(tasktemplate.FieldCreatedAt)).All(ctx)
			return mapAll(rows, toTaskTemplate), err
		}, func(t *model.TaskTemplate) string { return t.EventID }, wait),
		fileRequirements: eventLists(func(ctx context.Context, events []string) ([]*model.FileRequirement, error) {
			rows, err := r.ClientOf(ctx).FileRequirement.Query().Where(filerequirement.EventIDIn(events...)).
				Order(ent.Asc(filerequirement.FieldPosition), ent.Asc(filerequirement.FieldCreatedAt)).All(ctx)
			return mapAll(rows, toFileRequirement), err
		}, func(f *model.FileRequirement) string { return f.EventID }, wait),
		resources: eventLists(func(ctx context.Context, events []string) ([]*model.ResourceRecord, error) {
			return r.eventResources(ctx, events...)
		}, func(res *model.ResourceRecord) string { return res.EventID }, wait),
		reviewerTracks: dataloadgen.NewMappedLoader(r.eventsReviewerTracks, wait),
		agendaVersions: dataloadgen.NewMappedLoader(r.eventsAgendaVersions, wait),
		pipelines:      dataloadgen.NewMappedLoader(r.speakerPipelines, wait),
		decisionSends: eventLists(func(ctx context.Context, events []string) ([]*ent.DecisionSend, error) {
			return r.ClientOf(ctx).DecisionSend.Query().Where(decisionsend.EventIDIn(events...)).
				Order(ent.Desc(decisionsend.FieldScheduledAt), ent.Desc(decisionsend.FieldID)).All(ctx)
		}, func(d *ent.DecisionSend) string { return d.EventID }, wait),
		chaserPlans: dataloadgen.NewMappedLoader(func(ctx context.Context, events []string) (map[string][]plannedChaser, error) {
			return r.chaserPlansOf(ctx, events, time.Now())
		}, wait),
		contacts: dataloadgen.NewMappedLoader(func(ctx context.Context, ids []string) (map[string]*ent.Contact, error) {
			rows, err := r.ClientOf(ctx).Contact.Query().Where(contact.IDIn(ids...)).All(ctx)
			return byKey(rows, func(c *ent.Contact) string { return c.ID }), err
		}, wait),
		tasks: dataloadgen.NewMappedLoader(func(ctx context.Context, sessions []string) (map[string][]*model.Task, error) {
			rows, err := r.ClientOf(ctx).TaskAssignment.Query().Where(taskassignment.SubmissionIDIn(sessions...)).
				WithTemplate().All(ctx)
			if err != nil {
				return nil, err
			}
			out := group(mapAll(rows, toTask), func(t *model.Task) string { return t.SessionID })
			for _, id := range sessions {
				out[id] = nonNilSlice(out[id])
			}
			for _, list := range out {
				slices.SortStableFunc(list, func(a, b *model.Task) int {
					return cmp.Or(cmp.Compare(a.SortPosition, b.SortPosition), cmp.Compare(a.ID, b.ID))
				})
			}
			return out, nil
		}, wait),
		deliverables: dataloadgen.NewMappedLoader(func(ctx context.Context, sessions []string) (map[string][]*model.Deliverable, error) {
			rows, err := r.ClientOf(ctx).DeliverableAssignment.Query().Where(deliverableassignment.SubmissionIDIn(sessions...)).
				WithRequirement().All(ctx)
			if err != nil {
				return nil, err
			}
			out := group(mapAll(rows, toDeliverable), func(d *model.Deliverable) string { return d.SessionID })
			for _, id := range sessions {
				out[id] = nonNilSlice(out[id])
			}
			for _, list := range out {
				slices.SortStableFunc(list, func(a, b *model.Deliverable) int {
					return cmp.Or(cmp.Compare(a.SortPosition, b.SortPosition), cmp.Compare(a.ID, b.ID))
				})
			}
			return out, nil
		}, wait),
		submissions: dataloadgen.NewMappedLoader(func(ctx context.Context, keys []eventItem) (map[eventItem]*model.Submission, error) {
			events := unique(mapAll(keys, func(k eventItem) string { return k.event }))
			subs, err := r.eventsSubmissions(ctx, events, submissionFilter{ids: mapAll(keys, func(k eventItem) string { return k.id })})
			return byKey(subs, func(s *model.Submission) eventItem { return eventItem{s.EventID, s.ID} }), err
		}, wait),
		rounds: dataloadgen.NewMappedLoader(func(ctx context.Context, ids []string) (map[string]*model.RoundIndex, error) {
			var events []string
			err := eachRow(ctx, r.sql(ctx), `SELECT DISTINCT event_id FROM review_rounds WHERE id = ANY($1)`, ids,
				func(scan func(...any) error) error {
					var id string
					err := scan(&id)
					events = append(events, id)
					return err
				})
			if err != nil || len(events) == 0 {
				return map[string]*model.RoundIndex{}, err
			}
			workspaces, err := r.workspaces(ctx, events, "")
			if err != nil {
				return nil, err
			}
			out := map[string]*model.RoundIndex{}
			for _, ws := range workspaces {
				for _, v := range ws.Rounds {
					out[v.Configuration.Round.ID] = v.Index
				}
			}
			return out, nil
		}, wait),
		activity: dataloadgen.NewMappedLoader(func(ctx context.Context, keys []eventItem) (map[eventItem][]*model.TimelineItem, error) {
			return r.timelines(ctx, keys)
		}, wait),
		emails: dataloadgen.NewMappedLoader(func(ctx context.Context, ids []string) (map[string][]*model.SubmissionEmail, error) {
			return r.submissionEmailsOf(ctx, ids)
		}, wait),
		roundReviews: dataloadgen.NewMappedLoader(func(ctx context.Context, ids []string) (map[string][]*model.HumanReview, error) {
			list, err := r.humanReviews(ctx, ids, nil)
			if err != nil {
				return nil, err
			}
			out := group(list, func(h *model.HumanReview) string { return h.Assignment.SubmissionID })
			for _, id := range ids {
				out[id] = nonNilSlice(out[id])
			}
			return out, nil
		}, wait),
		quickReviews: dataloadgen.NewMappedLoader(func(ctx context.Context, ids []string) (map[string][]*model.QuickReview, error) {
			out, err := r.quickReviewsOf(ctx, ids, nil)
			if err != nil {
				return nil, err
			}
			for _, id := range ids {
				out[id] = nonNilSlice(out[id])
			}
			return out, nil
		}, wait),
		contactResources: dataloadgen.NewMappedLoader(func(ctx context.Context, keys []eventItem) (map[eventItem][]*model.ResourceRecord, error) {
			out, err := r.contactsResources(ctx, keys)
			for _, k := range keys {
				out[k] = nonNilSlice(out[k])
			}
			return out, err
		}, wait),
	}
}

// eventLists is a loader of one list per event: list reads the lists of the events, each in its
// order, in one statement; eventOf names the event of an item.
func eventLists[T any](list func(ctx context.Context, events []string) ([]T, error), eventOf func(T) string,
	opts ...dataloadgen.Option) *dataloadgen.Loader[string, []T] {
	return dataloadgen.NewMappedLoader(func(ctx context.Context, events []string) (map[string][]T, error) {
		rows, err := list(ctx, events)
		if err != nil {
			return nil, err
		}
		out := group(rows, eventOf)
		for _, id := range events {
			out[id] = nonNilSlice(out[id])
		}
		return out, nil
	}, opts...)
}

// byKey indexes a list.
func byKey[T any, K comparable](list []T, key func(T) K) map[K]T {
	out := make(map[K]T, len(list))
	for _, v := range list {
		out[key(v)] = v
	}
	return out
}

// group buckets a list by key, keeping order within each bucket.
func group[T any, K comparable](list []T, key func(T) K) map[K][]T {
	out := map[K][]T{}
	for _, v := range list {
		out[key(v)] = append(out[key(v)], v)
	}
	return out
}

// selected reports whether the GraphQL selection of the field being resolved contains path (field
// names, fragments followed). Outside GraphQL it reports false.
func selected(ctx context.Context, path ...string) bool {
	if !graphql.HasOperationContext(ctx) {
		return false
	}
	fc := graphql.GetFieldContext(ctx)
	if fc == nil {
		return false
	}
	oc := graphql.GetOperationContext(ctx)
	fields := graphql.CollectFields(oc, fc.Field.Selections, nil)
	for _, name := range path {
		i := slices.IndexFunc(fields, func(f graphql.CollectedField) bool { return f.Name == name })
		if i < 0 {
			return false
		}
		fields = graphql.CollectFields(oc, fields[i].Selections, nil)
	}
	return true
}

// prefetchSessions loads, in one query each, the edges of a page of sessions that the query asks
// for, so that each session's field finds them in the loaders.
func (r *Service) prefetchSessions(ctx context.Context, page []*model.Session) error {
	if len(page) == 0 {
		return nil
	}
	l := r.loaders(ctx)
	ids := mapAll(page, func(s *model.Session) string { return s.ID })
	if selected(ctx, "edges", "node", "tasks") {
		if _, err := l.tasks.LoadAll(ctx, ids); err != nil {
			return err
		}
	}
	if selected(ctx, "edges", "node", "deliverables") {
		if _, err := l.deliverables.LoadAll(ctx, ids); err != nil {
			return err
		}
	}
	if selected(ctx, "edges", "node", "contacts") {
		var contacts []string
		for _, s := range page {
			for _, sp := range s.Speakers {
				contacts = append(contacts, sp.ID)
			}
		}
		if _, err := l.contacts.LoadAll(ctx, contacts); err != nil {
			return err
		}
	}
	if selected(ctx, "edges", "node", "contacts", "resources") {
		var keys []eventItem
		for _, s := range page {
			for _, sp := range s.Speakers {
				keys = append(keys, eventItem{s.EventID, sp.ID})
			}
		}
		if _, err := l.contactResources.LoadAll(ctx, keys); err != nil {
			return err
		}
	}
	if selected(ctx, "edges", "node", "submission") {
		keys := mapAll(page, func(s *model.Session) eventItem { return eventItem{s.EventID, s.ID} })
		if _, err := l.submissions.LoadAll(ctx, keys); err != nil {
			return err
		}
		// A session is its submission: the submission's lists are keyed by the session's id.
		if selected(ctx, "edges", "node", "submission", "activity") {
			if _, err := l.activity.LoadAll(ctx, keys); err != nil {
				return err
			}
		}
		if selected(ctx, "edges", "node", "submission", "emails") {
			if _, err := l.emails.LoadAll(ctx, ids); err != nil {
				return err
			}
		}
		if selected(ctx, "edges", "node", "submission", "roundReviews") {
			if _, err := l.roundReviews.LoadAll(ctx, ids); err != nil {
				return err
			}
		}
	}
	return nil
}
