package operation

import (
	"context"

	"github.com/podium/podium/graph/model"

	"github.com/vikstrous/dataloadgen"

	"github.com/podium/podium/ent"
)

// eventModels load the read models Event's fields answer — agenda, library, evaluation,
// speakerDirectory, forms — for every event of a page at once: each read runs its fixed handful of
// statements over all the page's events (event_id = ANY) and hands each event its part, so a page
// of 30 events costs what a page of 3 does. Each model is built whole from the batched rows, so
// the fields under it (an agenda's sessions, a round's results) read nothing more.
//
// They are keyed by the *ent.Event the page read, not its id: the models show the event's own
// columns (an agenda's name and time zone, a form's submission limit) as that read saw them, and a
// mutation that returns the event again returns a new *ent.Event, which a model cached for the old
// one cannot answer.
type eventModels struct {
	agenda     *dataloadgen.Loader[*ent.Event, *model.Agenda]
	library    *dataloadgen.Loader[*ent.Event, *model.Library]
	evaluation *dataloadgen.Loader[*ent.Event, *model.EvaluationWorkspace]
	directory  *dataloadgen.Loader[*ent.Event, *model.SpeakerDirectory]
	forms      *dataloadgen.Loader[*ent.Event, []*model.CfpForm]
}

func (r *Service) newEventModels(opts ...dataloadgen.Option) *eventModels {
	return &eventModels{
		agenda:     eventModelLoader(r.agendas, opts...),
		library:    eventModelLoader(r.libraries, opts...),
		evaluation: eventModelLoader(r.evaluations, opts...),
		directory:  eventModelLoader(r.speakerDirectories, opts...),
		forms:      eventModelLoader(r.eventsForms, opts...),
	}
}

// eventModelLoader is a loader of one model per event: read builds the models of a batch of events,
// in their order. A failed read fails every event of the batch, whose statements it shared.
func eventModelLoader[T any](read func(ctx context.Context, evs []*ent.Event) ([]T, error),
	opts ...dataloadgen.Option) *dataloadgen.Loader[*ent.Event, T] {
	return dataloadgen.NewLoader(func(ctx context.Context, evs []*ent.Event) ([]T, []error) {
		out, err := read(ctx, evs)
		if err != nil {
			return nil, []error{err}
		}
		return out, nil
	}, opts...)
}

// eventModel answers a field of ev from its model: through the request's loader under GraphQL,
// batched with the other events of the page; straight from read elsewhere — REST answers one event
// through the same resolvers, and has no page to wait for.
func eventModel[T any](ctx context.Context, ev *ent.Event, loader func(*eventModels) *dataloadgen.Loader[*ent.Event, T],
	read func(ctx context.Context, evs []*ent.Event) ([]T, error)) (T, error) {
	if l, ok := ctx.Value(loadersKey{}).(*loaders); ok {
		return loader(l.eventModels).Load(ctx, ev)
	}
	out, err := read(ctx, []*ent.Event{ev})
	if err != nil {
		var zero T
		return zero, err
	}
	return out[0], nil
}

// EventAgenda answers Event.agenda.
func (r *Service) EventAgenda(ctx context.Context, ev *ent.Event) (*model.Agenda, error) {
	return eventModel(ctx, ev, func(m *eventModels) *dataloadgen.Loader[*ent.Event, *model.Agenda] { return m.agenda }, r.agendas)
}

// EventLibrary answers Event.library.
func (r *Service) EventLibrary(ctx context.Context, ev *ent.Event) (*model.Library, error) {
	return eventModel(ctx, ev, func(m *eventModels) *dataloadgen.Loader[*ent.Event, *model.Library] { return m.library }, r.libraries)
}

// EventEvaluation answers Event.evaluation.
func (r *Service) EventEvaluation(ctx context.Context, ev *ent.Event) (*model.EvaluationWorkspace, error) {
	return eventModel(ctx, ev, func(m *eventModels) *dataloadgen.Loader[*ent.Event, *model.EvaluationWorkspace] { return m.evaluation },
		r.evaluations)
}

// EventSpeakerDirectory answers Event.speakerDirectory.
func (r *Service) EventSpeakerDirectory(ctx context.Context, ev *ent.Event) (*model.SpeakerDirectory, error) {
	return eventModel(ctx, ev, func(m *eventModels) *dataloadgen.Loader[*ent.Event, *model.SpeakerDirectory] { return m.directory },
		r.speakerDirectories)
}

// EventForms answers Event.forms.
func (r *Service) EventForms(ctx context.Context, ev *ent.Event) ([]*model.CfpForm, error) {
	return eventModel(ctx, ev, func(m *eventModels) *dataloadgen.Loader[*ent.Event, []*model.CfpForm] { return m.forms }, r.eventsForms)
}

// eventIDs are the ids of events, each once.
func eventIDs(evs []*ent.Event) []string {
	return unique(mapAll(evs, func(ev *ent.Event) string { return ev.ID }))
}
