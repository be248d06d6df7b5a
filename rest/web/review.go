package web

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/podium/podium/graph/model"
	"github.com/podium/podium/graph/operation"

	"github.com/go-chi/chi/v5"

	"github.com/podium/podium/ent/schema/pid"
	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/graph/apperr"
)

// Desk serves the reviewer desk (/reviews): pages that call the same operations as GraphQL's
// myReviewAssignments, submitMyReview and recuseMyAssignment, for the signed-in person. Someone
// not signed in is sent to sign in and brought back.
type Desk struct {
	Ops *operation.Service
	// Person returns the signed-in person of a request, or nil.
	Person func(*http.Request) *viewer.Person
	// Log records failures that are not the person's doing.
	Log func(ctx context.Context, msg string, args ...any)
}

// Mount adds the desk's pages to r. Every POST is refused from another origin.
func (d *Desk) Mount(r chi.Router) {
	r.Get("/reviews", d.reviews)
	r.Get("/reviews/{id}", d.assignment)
	r.Post("/reviews/{id}", Protect(d.submit))
	r.Post("/reviews/{id}/recuse", Protect(d.recuse))
}

// signedIn returns the person of r and a context acting as them, or sends them to sign in.
func (d *Desk) signedIn(w http.ResponseWriter, r *http.Request) (*viewer.Person, context.Context, bool) {
	p := d.Person(r)
	if p == nil {
		http.Redirect(w, r, "/auth/signin?next="+url.QueryEscape(access.SafeNext(r.URL.RequestURI())), http.StatusSeeOther)
		return nil, nil, false
	}
	return p, viewer.NewContext(r.Context(), access.PersonViewer(p, "")), true
}

// failed renders an operation's refusal, or a generic page for anything else (logged).
func (d *Desk) failed(w http.ResponseWriter, r *http.Request, p *viewer.Person, err error) {
	d.failedBack(w, r, p, err, Link{Href: "/reviews", Text: "Back to your reviews"})
}

// failedBack is failed with a refusal's page linking back to back.
func (d *Desk) failedBack(w http.ResponseWriter, r *http.Request, p *viewer.Person, err error, back Link) {
	if e, ok := apperr.As(err); ok {
		Render(w, e.Status, Page{Title: "Not available", Person: p, Error: e.Message, Content: "link", Data: &back})
		return
	}
	d.Log(r.Context(), "page failed", "path", r.URL.Path, "err", err)
	Render(w, http.StatusInternalServerError, Page{Title: "Something went wrong", Person: p,
		Error: "This page could not be shown. Try again in a moment."})
}

// reviewList is what the list of assignments draws.
type reviewList struct {
	Assignments []*model.MyReviewAssignment
}

// reviews lists the person's assignments. A round's address (/reviews/rnd_…, where reviewer
// invitations lead) shows the same list.
func (d *Desk) reviews(w http.ResponseWriter, r *http.Request) {
	p, ctx, ok := d.signedIn(w, r)
	if !ok {
		return
	}
	list, err := d.Ops.ReviewerDesk(ctx)
	if err != nil {
		d.failed(w, r, p, err)
		return
	}
	Render(w, http.StatusOK, Page{Title: "Your reviews", Person: p, Content: "review-list", Data: reviewList{Assignments: list}})
}

// reviewForm is what one assignment's page draws: the assignment, the values in the form (what
// was submitted, or what the person just typed when the form was refused) and field errors.
type reviewForm struct {
	A      *model.MyReviewAssignment
	Values map[string]string
	Errors map[string]string
	Reason string
}

// Open reports whether answers are accepted now.
func (f reviewForm) Open() bool {
	return f.A.Round.Status == model.ReviewRoundStatusOpen && f.A.Status != model.ReviewAssignmentStatusRecused
}

// assignment shows one assignment with the scorecard form.
func (d *Desk) assignment(w http.ResponseWriter, r *http.Request) {
	id := chi.URLParam(r, "id")
	if pid.Prefix(id) != "asg" {
		d.reviews(w, r)
		return
	}
	p, ctx, ok := d.signedIn(w, r)
	if !ok {
		return
	}
	a, err := d.Ops.ReviewerAssignment(ctx, id)
	if err != nil {
		d.failed(w, r, p, err)
		return
	}
	page := Page{Title: a.Submission.Title, Person: p, Content: "review-assignment", Data: reviewForm{A: a, Values: answered(a)}}
	switch r.URL.Query().Get("done") {
	case "submitted":
		page.Notice = "Your review is saved. You can change it while the round is open."
	case "recused":
		page.Notice = "You stepped back from this review."
	}
	Render(w, http.StatusOK, page)
}

// answered is the person's answers as form values.
func answered(a *model.MyReviewAssignment) map[string]string {
	out := map[string]string{}
	for _, v := range a.Answers {
		switch {
		case v.NumericValue != nil:
			out[v.CriterionID] = strconv.FormatFloat(*v.NumericValue, 'f', -1, 64)
		case v.OptionValue != nil:
			out[v.CriterionID] = *v.OptionValue
		case v.TextValue != nil:
			out[v.CriterionID] = *v.TextValue
		}
	}
	return out
}

// submit records the answers of the form; a refused form comes back with what was typed and
// the reason, next to the criterion it concerns.
func (d *Desk) submit(w http.ResponseWriter, r *http.Request) {
	p, ctx, ok := d.signedIn(w, r)
	if !ok {
		return
	}
	id := chi.URLParam(r, "id")
	a, err := d.Ops.ReviewerAssignment(ctx, id)
	if err != nil {
		d.failed(w, r, p, err)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 256<<10)
	if err := r.ParseForm(); err != nil {
		d.failed(w, r, p, apperr.InvalidBody("The form could not be read"))
		return
	}
	form := reviewForm{A: a, Values: map[string]string{}, Errors: map[string]string{}}
	var in model.SubmitReviewAnswersInput
	for _, c := range a.Criteria {
		raw := strings.TrimSpace(r.PostForm.Get("c_" + c.ID))
		form.Values[c.ID] = raw
		if raw == "" {
			continue
		}
		ans := &model.ReviewAnswerInput{CriterionID: c.ID}
		switch c.Type {
		case model.ReviewCriterionTypeNumeric:
			n, err := strconv.ParseFloat(raw, 64)
			if err != nil {
				form.Errors[c.ID] = "Enter a number."
				continue
			}
			ans.NumericValue = &n
		case model.ReviewCriterionTypeDropdown:
			ans.OptionValue = &raw
		default:
			ans.TextValue = &raw
		}
		in.Answers = append(in.Answers, ans)
	}
	if len(form.Errors) > 0 {
		Render(w, http.StatusBadRequest, Page{Title: a.Submission.Title, Person: p, Content: "review-assignment", Data: form,
			Error: "Some answers need fixing: see below."})
		return
	}
	if _, err := d.Ops.SubmitReview(ctx, id, in); err != nil {
		e, ok := apperr.As(err)
		if !ok {
			d.failed(w, r, p, err)
			return
		}
		for _, c := range a.Criteria {
			if strings.HasPrefix(e.Message, c.Label+" ") {
				form.Errors[c.ID] = e.Message
			}
		}
		Render(w, e.Status, Page{Title: a.Submission.Title, Person: p, Content: "review-assignment", Data: form, Error: e.Message})
		return
	}
	http.Redirect(w, r, "/reviews/"+url.PathEscape(id)+"?done=submitted", http.StatusSeeOther)
}

// maxReason is the longest recusal reason kept (the review assignment's schema).
const maxReason = 2000

// recuse records the person stepping back from the assignment.
func (d *Desk) recuse(w http.ResponseWriter, r *http.Request) {
	p, ctx, ok := d.signedIn(w, r)
	if !ok {
		return
	}
	id := chi.URLParam(r, "id")
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		d.failed(w, r, p, apperr.InvalidBody("The form could not be read"))
		return
	}
	reason := r.PostForm.Get("reason")
	if len([]rune(reason)) > maxReason {
		d.failed(w, r, p, apperr.Invalid("Keep the reason under %d characters", maxReason))
		return
	}
	if _, err := d.Ops.Recuse(ctx, id, reason); err != nil {
		d.failed(w, r, p, err)
		return
	}
	http.Redirect(w, r, "/reviews/"+url.PathEscape(id)+"?done=recused", http.StatusSeeOther)
}
