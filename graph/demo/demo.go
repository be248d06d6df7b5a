// Package demo loads an event a newcomer can click through — speakers, proposals in every state,
// sessions with their readiness, a published agenda, a review round with results, resources —
// through the same operations the API runs, so the demo data obeys every rule real data does.
package demo

import (
	"context"
	"fmt"
	"time"

	"github.com/podium/podium/graph/model"

	gqlgraphql "github.com/99designs/gqlgen/graphql"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/contact"
	"github.com/podium/podium/ent/dbx"
	"github.com/podium/podium/ent/event"
	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/graph"
	"github.com/podium/podium/graph/access"
)

// Result names what Load made.
type Result struct {
	EventID string
	// Key is a new API key of the organization, shown once.
	Key string
}

type person struct{ first, last, company, title string }

var people = []person{
	{"Ada", "Lovelace", "Analytical Engines", "Principal Engineer"},
	{"Grace", "Hopper", "Compiler Works", "Distinguished Engineer"},
	{"Alan", "Turing", "Bletchley Labs", "Research Lead"},
	{"Katherine", "Johnson", "Orbital Data", "Staff Data Scientist"},
	{"Edsger", "Dijkstra", "Shortest Path", "Architect"},
	{"Barbara", "Liskov", "Substitution Inc.", "CTO"},
	{"Donald", "Knuth", "Literate Systems", "Author"},
	{"Margaret", "Hamilton", "Flight Software", "Head of Reliability"},
	{"Dennis", "Ritchie", "Portable Code", "Engineer"},
	{"Frances", "Allen", "Optimizing Compilers", "Fellow"},
	{"Radia", "Perlman", "Spanning Trees", "Network Architect"},
	{"Ken", "Thompson", "Unix Tools", "Engineer"},
}

type proposal struct {
	title, description string
	track, format      int
	speakers           []int
}

var proposals = []proposal{
	{"Generics in practice", "Two years of type parameters in a large codebase: what paid off and what did not.", 0, 0, []int{0}},
	{"Profiling the garbage collector", "Reading GC traces, finding allocation hot spots and fixing them.", 0, 0, []int{1, 8}},
	{"Fuzzing your parsers", "Native fuzzing found 40 bugs in our JSON and SQL parsers; here is how.", 3, 2, []int{11}},
	{"Postgres as a job queue", "Transactional jobs with River: exactly-once side effects without a broker.", 1, 0, []int{4}},
	{"Streaming analytics on a budget", "From Kafka to a single Postgres: simpler, cheaper, fast enough.", 1, 0, []int{3}},
	{"Zero-trust service meshes", "mTLS everywhere without the operational pain.", 2, 1, []int{10}},
	{"Designing APIs people love", "Contracts, errors and pagination that integrators thank you for.", 0, 0, []int{5}},
	{"Incident reviews that teach", "Blameless reviews and the metrics that matter.", 2, 2, []int{7}},
	{"Supply-chain security for Go", "Verifying modules, SBOMs and reproducible builds.", 3, 0, []int{9, 11}},
	{"The art of readable code", "Naming, structure and comments that say why.", 0, 0, []int{6}},
	{"Vector search in SQL", "Embeddings next to your rows: when it works and when it does not.", 1, 0, []int{2}},
	{"Chaos engineering for small teams", "Game days without a platform team.", 2, 1, []int{7, 10}},
	{"Memory safety without a rewrite", "Incremental hardening of a C codebase.", 3, 0, []int{8}},
	{"Teaching algorithms with games", "Puzzles that make graph algorithms stick.", 0, 2, []int{4, 6}},
}

// Load writes the demo event into the organization named org (created when new) and makes a key
// for it.
func Load(ctx context.Context, db *dbx.DB, res *graph.Resolver, org string) (Result, error) {
	var out Result
	ctx = viewer.System(ctx, "seed demo: creates the organization and its key, then loads its event")
	err := db.InTx(ctx, func(ctx context.Context) error {
		key, rec, err := access.CreateKey(ctx, dbx.TxFromContext(ctx).Ent(), org, "demo")
		if err != nil {
			return err
		}
		out.Key = key
		ctx = viewer.NewContext(ctx, &viewer.Viewer{OrganizationID: rec.OrganizationID, APIKeyID: rec.ID, APIKeyName: rec.Name,
			APIKeyScopes: rec.Scopes})
		l := &loader{ctx: ctx, m: res.Mutation(), res: res}
		out.EventID = l.run()
		return l.err
	})
	return out, err
}

// loader runs the steps until the first error.
type loader struct {
	ctx context.Context
	m   graph.MutationResolver
	res *graph.Resolver
	err error
}

func (l *loader) do(step string, f func() error) {
	if l.err != nil {
		return
	}
	if err := f(); err != nil {
		l.err = fmt.Errorf("demo: %s: %w", step, err)
	}
}

func (l *loader) run() string {
	loc, _ := time.LoadLocation("Europe/Berlin")
	day := time.Now().In(loc).AddDate(0, 2, 0)
	day1 := time.Date(day.Year(), day.Month(), day.Day(), 9, 0, 0, 0, loc)

	var eventID string
	l.do("event", func() error {
		ev, err := l.m.CreateEvent(l.ctx, model.CreateEventInput{Name: "GopherCon Demo", Type: event.TypeConference,
			Timezone: "Europe/Berlin", StartsAt: day1, EndsAt: day1.AddDate(0, 0, 1).Add(9 * time.Hour)})
		if err != nil {
			return err
		}
		eventID = ev.ID
		_, err = l.m.UpdateEvent(l.ctx, ev.ID, model.UpdateEventInput{
			Tagline:  gqlgraphql.OmittableOf(new("Two days of Go, data and reliability")),
			Location: gqlgraphql.OmittableOf(new("Berlin, Alte Münze")),
		})
		return err
	})
	tracks := l.library(eventID, model.LibraryKindTrack, []string{"Go", "Data", "Reliability", "Security"}, []string{"#00add8", "#7c3aed", "#16a34a", "#dc2626"}, nil)
	formats := l.library(eventID, model.LibraryKindFormat, []string{"Talk", "Workshop", "Lightning talk"}, nil, []int{40, 90, 10})
	rooms := l.library(eventID, model.LibraryKindRoom, []string{"Main hall", "Workshop room", "Studio"}, nil, nil)
	l.library(eventID, model.LibraryKindLevel, []string{"Beginner", "Intermediate", "Advanced"}, nil, nil)

	// Readiness inputs come first, so that accepted sessions get their tasks and files.
	l.do("readiness", func() error {
		if _, err := l.m.SaveTaskTemplate(l.ctx, eventID, model.SaveTaskTemplateInput{Title: "Confirm your slot",
			Instructions: new("Check the date, time and room and tell us they work."), Scope: model.ReadinessScopeSession}); err != nil {
			return err
		}
		if _, err := l.m.SaveTaskTemplate(l.ctx, eventID, model.SaveTaskTemplateInput{Title: "Complete your speaker profile",
			Scope: model.ReadinessScopeSpeaker}); err != nil {
			return err
		}
		if _, err := l.m.SaveFileRequirement(l.ctx, eventID, model.SaveFileRequirementInput{Label: "Slides",
			Scope: model.ReadinessScopeSession}); err != nil {
			return err
		}
		_, err := l.m.SaveFileRequirement(l.ctx, eventID, model.SaveFileRequirementInput{Label: "Headshot",
			Scope: model.ReadinessScopeSpeaker})
		return err
	})

	speakers := make([]string, len(people))
	l.do("speakers", func() error {
		for i, p := range people {
			ct, err := l.m.SaveSpeaker(l.ctx, eventID, model.SaveSpeakerInput{FirstName: p.first, LastName: p.last,
				Email: fmt.Sprintf("%s.%s@example.com", lower(p.first), lower(p.last)), Title: new(p.title),
				Company: new(p.company), Bio: new(p.first + " works on " + p.company + "'s hardest problems."),
				DietaryRequirements: contact.DietaryRequirementsNone, WorkflowStatus: contact.WorkflowStatusInvited})
			if err != nil {
				return err
			}
			speakers[i] = ct.ID
		}
		return nil
	})

	subs := make([]string, len(proposals))
	l.do("proposals", func() error {
		for i, p := range proposals {
			ids := make([]string, len(p.speakers))
			for j, s := range p.speakers {
				ids[j] = speakers[s]
			}
			rec, err := l.m.CreateSubmission(l.ctx, eventID, model.CreateSubmissionInput{Title: p.title,
				Description: new(p.description), FormatID: new(formats[p.format]), TrackIds: []string{tracks[p.track]},
				SpeakerIds: ids, Answers: map[string]any{"audience": "Engineers who ship Go services"}})
			if err != nil {
				return err
			}
			subs[i] = rec.ID
		}
		return nil
	})

	// Decisions: eight accepted (five with approved content), two declined, one maybe; the rest
	// stay pending for the review round. The demo's decisions are announced (docs/decisions.md).
	accepted := subs[:8]
	l.do("decisions", func() error {
		if _, err := l.m.DecideSubmissions(l.ctx, eventID, model.DecideSubmissionsInput{SubmissionIds: accepted[:5],
			Decision: model.DecisionAccept, Feedback: new("We loved it."), Inform: new(true), ApproveContent: new(true)}); err != nil {
			return err
		}
		if _, err := l.m.DecideSubmissions(l.ctx, eventID, model.DecideSubmissionsInput{SubmissionIds: accepted[5:],
			Decision: model.DecisionAccept, Feedback: new("Welcome aboard."), Inform: new(true)}); err != nil {
			return err
		}
		if _, err := l.m.DecideSubmissions(l.ctx, eventID, model.DecideSubmissionsInput{SubmissionIds: subs[8:10],
			Decision: model.DecisionDecline, Feedback: new("A strong field this year; thank you for proposing."), Inform: new(true)}); err != nil {
			return err
		}
		_, err := l.m.ChangeSubmissionStatus(l.ctx, eventID, subs[10], model.ChangeSubmissionStatusInput{Status: model.SubmissionStatusMaybe})
		return err
	})

	var keynote string
	l.do("keynote", func() error {
		rec, err := l.m.CreateSession(l.ctx, eventID, model.CreateSessionInput{Title: "Opening keynote: twenty years of Go",
			Description: new("Where the language came from and where it is going."), FormatID: new(formats[0]),
			SpeakerIds: []string{speakers[1], speakers[11]}})
		if err != nil {
			return err
		}
		keynote = rec.ID
		return nil
	})

	// The agenda: the keynote, then the accepted sessions in three rooms over two days.
	l.do("schedule", func() error {
		slots := append([]string{keynote}, accepted...)
		for i, id := range slots {
			start := day1.Add(time.Duration(i/3) * time.Hour)
			if i >= 6 {
				start = day1.AddDate(0, 0, 1).Add(time.Duration((i-6)/3) * time.Hour)
			}
			end := start.Add(45 * time.Minute)
			if _, err := l.m.ScheduleSession(l.ctx, eventID, model.ScheduleSessionInput{SubmissionID: id,
				RoomID: new(rooms[i%3]), StartsAt: new(start.UTC()), EndsAt: new(end.UTC())}); err != nil {
				return err
			}
		}
		return nil
	})
	l.do("readiness progress", func() error { return l.progress(eventID, append([]string{keynote}, accepted[:4]...)) })
	l.do("publish", func() error {
		_, err := l.m.PublishAgenda(l.ctx, eventID, new(true))
		return err
	})
	// A cancellation after publication: the agenda is now dirty, as it would be in real life.
	l.do("cancellation", func() error {
		_, err := l.m.CancelSession(l.ctx, eventID, accepted[7], model.CancelSessionInput{Cause: model.SessionCancelledBySpeaker,
			Message: new("Our speaker cannot travel."), NotifySpeakers: new(false)})
		return err
	})
	l.do("review round", func() error { return l.reviews(eventID, subs) })
	l.do("resources", func() error { return l.resources(eventID, tracks) })
	l.do("portal invitations", func() error {
		_, err := l.m.InviteSpeakerPortals(l.ctx, eventID, model.InviteSpeakerPortalsInput{ContactIds: speakers[:6]})
		return err
	})
	return eventID
}

// library saves items of one kind and returns their ids.
func (l *loader) library(eventID string, kind model.LibraryKind, names, colors []string, minutes []int) []string {
	ids := make([]string, len(names))
	l.do("library", func() error {
		for i, name := range names {
			in := model.SaveLibraryItemInput{Kind: kind, Name: name}
			if colors != nil {
				in.Color = new(colors[i])
			}
			if minutes != nil {
				in.DurationMinutes = new(minutes[i])
			}
			item, err := l.m.SaveLibraryItem(l.ctx, eventID, in)
			if err != nil {
				return err
			}
			switch it := item.(type) {
			case *ent.Track:
				ids[i] = it.ID
			case *ent.Format:
				ids[i] = it.ID
			case *ent.Room:
				ids[i] = it.ID
			case *ent.Level:
				ids[i] = it.ID
			case *ent.Tag:
				ids[i] = it.ID
			}
		}
		return nil
	})
	return ids
}

// progress marks some tasks done and some files uploaded.
func (l *loader) progress(eventID string, sessions []string) error {
	ev, err := l.res.Query().Event(l.ctx, eventID)
	if err != nil {
		return err
	}
	for i, id := range sessions {
		s, err := l.res.Event().Session(l.ctx, ev, id)
		if err != nil {
			return err
		}
		tasks, err := l.res.Session().Tasks(l.ctx, s)
		if err != nil {
			return err
		}
		for j, task := range tasks {
			if (i+j)%2 == 0 {
				if _, err := l.m.SetTaskStatus(l.ctx, eventID, id, task.ID, model.SetTaskStatusInput{Status: model.TaskStatusDone}); err != nil {
					return err
				}
			}
		}
		files, err := l.res.Session().Deliverables(l.ctx, s)
		if err != nil {
			return err
		}
		for j, d := range files {
			if (i+j)%3 != 2 {
				if _, err := l.m.RecordDeliverableUpload(l.ctx, eventID, id, d.ID, model.RecordDeliverableUploadInput{
					FileName: "upload.pdf", ContentType: "application/pdf", Size: 524288,
					StorageKey: fmt.Sprintf("demo/%s/%s.pdf", id, d.ID)}); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// reviews opens a round on the proposals still undecided, distributes them to three reviewers
// and answers most assignments.
func (l *loader) reviews(eventID string, subs []string) error {
	ws, err := l.m.SaveReviewRound(l.ctx, eventID, model.SaveReviewRoundInput{Name: "First round",
		OpensAt: time.Now().Add(-24 * time.Hour).UTC(), ClosesAt: time.Now().AddDate(0, 0, 21).UTC(),
		ReviewsPerSubmission: 2, Position: 1, Criteria: []*model.ReviewCriterionInput{
			{Label: "Relevance", Type: model.ReviewCriterionTypeNumeric, Min: new(1.0), Max: new(5.0), Required: true, Weight: 2, Options: []string{}},
			{Label: "Clarity", Type: model.ReviewCriterionTypeNumeric, Min: new(1.0), Max: new(5.0), Weight: 1, Options: []string{}},
			{Label: "Recommendation", Type: model.ReviewCriterionTypeDropdown, Options: []string{"Accept", "Maybe", "Reject"}, Weight: 1},
			{Label: "Notes for the speaker", Type: model.ReviewCriterionTypeText, Options: []string{}, Weight: 1},
		}})
	if err != nil {
		return err
	}
	var round *model.RoundView
	for _, v := range ws.Workspace.Rounds {
		if v.Configuration.Round.ID == ws.RoundID {
			round = v
		}
	}
	criteria := round.Configuration.Criteria
	for _, email := range []string{"reviewer.one@example.com", "reviewer.two@example.com", "reviewer.three@example.com"} {
		if _, err := l.m.AddReviewer(l.ctx, eventID, ws.RoundID, model.AddReviewerInput{Email: email, AccessPath: "/reviews"}); err != nil {
			return err
		}
	}
	if _, err := l.m.AutoDistributeReviews(l.ctx, eventID, ws.RoundID, model.AutoDistributeReviewsInput{TrackIds: []string{}}); err != nil {
		return err
	}
	ev, err := l.res.Query().Event(l.ctx, eventID)
	if err != nil {
		return err
	}
	view, err := l.res.Event().ReviewRound(l.ctx, ev, ws.RoundID)
	if err != nil {
		return err
	}
	verdicts := []string{"Accept", "Maybe", "Accept", "Reject"}
	for i, a := range view.Assignments {
		if i%4 == 3 {
			continue // left pending, so progress is not all done
		}
		_, err := l.m.SubmitReviewAnswers(l.ctx, eventID, a.ID, model.SubmitReviewAnswersInput{Answers: []*model.ReviewAnswerInput{
			{CriterionID: criteria[0].ID, NumericValue: new(float64(2 + i%4))},
			{CriterionID: criteria[1].ID, NumericValue: new(float64(1 + (i+1)%5))},
			{CriterionID: criteria[2].ID, OptionValue: new(verdicts[i%4])},
			{CriterionID: criteria[3].ID, TextValue: new("Clear abstract; the outline could say more about the demo.")},
		}})
		if err != nil {
			return err
		}
	}
	return nil
}

// resources adds a briefing for everyone, a video guide, notes for one track and a draft.
func (l *loader) resources(eventID string, tracks []string) error {
	link, embed := model.ResourceInputAttachmentKindLink, model.ResourceInputAttachmentKindEmbed
	for _, in := range []model.ResourceInput{
		{Title: "Speaker briefing", Subtitle: "Everything you need before the day", Body: "Arrive 30 minutes before your slot.",
			Published: true, AudienceMode: model.ResourceAudienceModeAll, AttachmentKind: &link, LinkURL: new("https://example.com/briefing.pdf")},
		{Title: "Recording guide", Subtitle: "How we record and publish talks", Published: true,
			AudienceMode: model.ResourceAudienceModeAll, AttachmentKind: &embed, EmbedURL: new("https://www.youtube.com/embed/dQw4w9WgXcQ")},
		{Title: "Go track notes", Body: "The Go track shares the main hall's clicker and timer.", Published: true,
			AudienceMode: model.ResourceAudienceModeTracks, TrackIds: []string{tracks[0]}},
		{Title: "Venue map", Body: "Coming soon.", AudienceMode: model.ResourceAudienceModeAll},
	} {
		if in.TrackIds == nil {
			in.TrackIds = []string{}
		}
		in.ContactIds = []string{}
		if _, err := l.m.CreateResource(l.ctx, eventID, in); err != nil {
			return err
		}
	}
	return nil
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 32
		}
	}
	return string(b)
}
