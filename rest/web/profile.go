package web

import (
	"errors"
	"net/http"
	"strings"

	"github.com/podium/podium/graph/model"

	"github.com/go-chi/chi/v5"

	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/graph/apperr"
	"github.com/podium/podium/graph/files"
	"github.com/podium/podium/graph/operation"
)

// The speaker's profile and session content pages (docs/profile-review.md):
//
//	GET  /portal/profile                  the profile form (?contact= picks the event's contact)
//	POST /portal/profile                  save it
//	POST /portal/profile/headshot         upload a headshot
//	GET  /portal/sessions/{id}/content    a session's title and description
//	POST /portal/sessions/{id}/content    save them
//
// They call the operations GraphQL calls (graph/operation/profile_review.go) and hold no rule of their own.

// maxHeadshotBody caps a headshot upload's body: the file store refuses images over its own
// limit, which is below this.
const maxHeadshotBody = 32 << 20

// MountProfile adds the profile and session content pages to r. Every POST is refused from
// another origin.
func MountProfile(r chi.Router, d *Desk) {
	p := &profilePages{d}
	r.Get("/portal/profile", p.profile)
	r.Post("/portal/profile", Protect(p.saveProfile))
	r.Post("/portal/profile/headshot", Protect(p.headshot))
	r.Get("/portal/sessions/{id}/content", p.content)
	r.Post("/portal/sessions/{id}/content", Protect(p.saveContent))
}

type profilePages struct{ *Desk }

// profileForm is what template profile-form draws.
type profileForm struct {
	P *model.MyProfile
	// V are the values shown, as typed when the form was refused.
	V      map[string]string
	Errors map[string]string
	// Others are the person's other events, to switch to.
	Others []profileEvent
	Diets  []string
	Sizes  []string
	// Top and Links are the text inputs above the bio and below it.
	Top, Links []profileInput
}

// profileInput is one text input of the profile form.
type profileInput struct {
	Key, Label, Hint, Type, Auto, Value, Err string
}

// profileInputs are the form's text inputs: key, label, hint, type, autocomplete.
var profileInputs = [][5]string{
	{"firstName", "First name", "(required)", "", "given-name"},
	{"lastName", "Last name", "(required)", "", "family-name"},
	{"salutation", "Salutation", "(Ms, Mr, Mx…)", "", "honorific-prefix"},
	{"honorific", "Honorific", "(Dr, Prof…)", "", ""},
	{"pronouns", "Pronouns", "", "", ""},
	{"gender", "Gender", "", "", ""},
	{"linkedinUrl", "LinkedIn", "(https:// address)", "url", "url"},
	{"twitterUrl", "Twitter (X)", "(https:// address)", "url", ""},
	{"facebookUrl", "Facebook", "(https:// address)", "url", ""},
	{"websiteUrl", "Website", "(https:// address)", "url", ""},
}

type profileEvent struct{ ContactID, Name string }

var profileNotices = map[string]string{
	"saved":   "Saved.",
	"pending": "Saved — sent for organizer approval. The last approved version of your profile stays public until then.",
}

// contactOf picks the person's contact: ?contact= when it is theirs, else their first.
func contactOf(p *viewer.Person, want string) string {
	for _, c := range p.Contacts {
		if c.ContactID == want {
			return want
		}
	}
	if len(p.Contacts) > 0 {
		return p.Contacts[0].ContactID
	}
	return ""
}

func (p *profilePages) fail(w http.ResponseWriter, r *http.Request, person *viewer.Person, t Theme, err error) {
	e, ok := apperr.As(err)
	if !ok {
		p.Log(r.Context(), "profile page failed", "path", r.URL.Path, "err", err)
		e = apperr.Internal()
	}
	Render(w, e.Status, Page{Title: "Not available", Theme: t, Person: person, Error: e.Message, Content: "link",
		Data: &Link{Href: "/portal", Text: "Back to your speaker portal"}})
}

func (p *profilePages) theme(r *http.Request, person *viewer.Person, contactID string) Theme {
	ev, err := p.Ops.OwnContactEvent(r.Context(), person, contactID)
	if err != nil {
		return Theme{}
	}
	return themeOfEvent(ev)
}

func (p *profilePages) profile(w http.ResponseWriter, r *http.Request) {
	person, _, ok := p.signedIn(w, r)
	if !ok {
		return
	}
	id := contactOf(person, r.URL.Query().Get("contact"))
	if id == "" {
		p.fail(w, r, person, Theme{}, apperr.NotFound("Speaker profile"))
		return
	}
	prof, err := p.Ops.OwnProfile(r.Context(), person, id)
	if err != nil {
		p.fail(w, r, person, Theme{}, err)
		return
	}
	p.renderProfile(w, r, http.StatusOK, person, prof, valuesOf(prof), nil, profileNotices[r.URL.Query().Get("done")], "")
}

func valuesOf(prof *model.MyProfile) map[string]string {
	s := func(v *string) string {
		if v == nil {
			return ""
		}
		return *v
	}
	return map[string]string{"firstName": prof.FirstName, "lastName": prof.LastName, "salutation": s(prof.Salutation),
		"honorific": s(prof.Honorific), "pronouns": s(prof.Pronouns), "gender": s(prof.Gender), "bio": s(prof.Bio),
		"linkedinUrl": s(prof.LinkedinURL), "twitterUrl": s(prof.TwitterURL), "facebookUrl": s(prof.FacebookURL),
		"websiteUrl": s(prof.WebsiteURL), "dietaryRequirements": prof.DietaryRequirements, "tshirtSize": s(prof.TshirtSize)}
}

func (p *profilePages) renderProfile(w http.ResponseWriter, r *http.Request, status int, person *viewer.Person,
	prof *model.MyProfile, v map[string]string, errs map[string]string, notice, problem string) {
	d := profileForm{P: prof, V: v, Errors: errs, Diets: []string{"none", "vegetarian", "vegan", "gluten_free", "other"},
		Sizes: []string{"XS", "S", "M", "L", "XL", "XXL"}}
	for i, f := range profileInputs {
		in := profileInput{Key: f[0], Label: f[1], Hint: f[2], Type: f[3], Auto: f[4], Value: v[f[0]], Err: errs[f[0]]}
		if i < 6 {
			d.Top = append(d.Top, in)
		} else {
			d.Links = append(d.Links, in)
		}
	}
	if len(person.Contacts) > 1 {
		if events, err := p.Ops.Speaking(r.Context()); err == nil {
			for _, e := range events {
				if e.Contact.ID != prof.ContactID {
					d.Others = append(d.Others, profileEvent{ContactID: e.Contact.ID, Name: e.EventName})
				}
			}
		}
	}
	Render(w, status, Page{Title: "Your speaker profile", Theme: p.theme(r, person, prof.ContactID), Person: person,
		Notice: notice, Error: problem, Content: "profile-form", Data: d})
}

func (p *profilePages) saveProfile(w http.ResponseWriter, r *http.Request) {
	person, _, ok := p.signedIn(w, r)
	if !ok {
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBody)
	if err := r.ParseForm(); err != nil {
		p.fail(w, r, person, Theme{}, apperr.Invalid("The form could not be read: send it again"))
		return
	}
	id := r.PostForm.Get("contact")
	v := map[string]string{}
	text := func(k string) *string {
		s := r.PostForm.Get(k)
		v[k] = s
		return &s
	}
	in := model.MyProfileInput{FirstName: text("firstName"), LastName: text("lastName"), Salutation: text("salutation"),
		Honorific: text("honorific"), Pronouns: text("pronouns"), Gender: text("gender"), Bio: text("bio"),
		LinkedinURL: text("linkedinUrl"), TwitterURL: text("twitterUrl"), FacebookURL: text("facebookUrl"),
		WebsiteURL: text("websiteUrl"), DietaryRequirements: text("dietaryRequirements"), TshirtSize: text("tshirtSize")}
	prof, err := p.Ops.UpdateOwnProfile(r.Context(), person, id, in)
	if err != nil {
		p.refused(w, r, person, id, v, err)
		return
	}
	done := "saved"
	if prof.ProfileReviewStatus == "pending_review" && prof.Reviewed {
		done = "pending"
	}
	http.Redirect(w, r, "/portal/profile?contact="+prof.ContactID+"&done="+done, http.StatusSeeOther)
}

// refused shows the profile form again with what the person typed and the operation's message,
// by the field it is about.
func (p *profilePages) refused(w http.ResponseWriter, r *http.Request, person *viewer.Person, id string, v map[string]string, err error) {
	e, ok := apperr.As(err)
	if !ok {
		p.fail(w, r, person, Theme{}, err)
		return
	}
	prof, perr := p.Ops.OwnProfile(r.Context(), person, id)
	if perr != nil {
		p.fail(w, r, person, Theme{}, perr)
		return
	}
	if v == nil {
		v = valuesOf(prof)
	}
	errs := map[string]string{}
	if f := operation.FieldOf(err); f != "" {
		errs[f] = e.Message
	}
	p.renderProfile(w, r, e.Status, person, prof, v, errs, "", "Your changes were not saved: "+e.Message)
}

func (p *profilePages) headshot(w http.ResponseWriter, r *http.Request) {
	person, _, ok := p.signedIn(w, r)
	if !ok {
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxHeadshotBody)
	id := r.URL.Query().Get("contact")
	if err := r.ParseMultipartForm(1 << 20); err != nil {
		var tooBig *http.MaxBytesError
		msg := "The upload could not be read: choose the file again"
		if errors.As(err, &tooBig) {
			msg = "This file is too large for a headshot"
		}
		p.refused(w, r, person, id, nil, &operation.ProfileFieldError{Field: "headshot", Err: apperr.Invalid("%s", msg)})
		return
	}
	defer func() { _ = r.MultipartForm.RemoveAll() }()
	if id == "" {
		id = r.PostForm.Get("contact")
	}
	f, h, err := r.FormFile("headshot")
	if err != nil {
		p.refused(w, r, person, id, nil, &operation.ProfileFieldError{Field: "headshot", Err: apperr.Invalid("Choose a photo to upload")})
		return
	}
	defer func() { _ = f.Close() }()
	// The file store notes what it stores; once the change has committed or rolled back, what no
	// row points at goes.
	ctx, tracker := files.Track(r.Context())
	prof, err := p.Ops.UploadOwnHeadshot(ctx, person, id, files.Upload{Name: h.Filename, File: f, Size: h.Size})
	if p.Ops.Files != nil {
		p.Ops.Files.Settle(ctx, tracker)
	}
	if err != nil {
		p.refused(w, r, person, id, nil, err)
		return
	}
	done := "saved"
	if prof.ProfileReviewStatus == "pending_review" && prof.Reviewed {
		done = "pending"
	}
	http.Redirect(w, r, "/portal/profile?contact="+prof.ContactID+"&done="+done, http.StatusSeeOther)
}

// contentForm is what template profile-content draws.
type contentForm struct {
	C           *model.MySessionContent
	Title, Desc string
	Errors      map[string]string
}

var contentNotices = map[string]string{
	"saved":   "Saved.",
	"pending": "Saved — sent for organizer approval.",
}

func (p *profilePages) content(w http.ResponseWriter, r *http.Request) {
	person, _, ok := p.signedIn(w, r)
	if !ok {
		return
	}
	c, err := p.Ops.OwnSessionContent(r.Context(), person, chi.URLParam(r, "id"))
	if err != nil {
		p.fail(w, r, person, Theme{}, err)
		return
	}
	desc := ""
	if c.Description != nil {
		desc = *c.Description
	}
	p.renderContent(w, r, http.StatusOK, person, contentForm{C: c, Title: c.Title, Desc: desc},
		contentNotices[r.URL.Query().Get("done")], "")
}

func (p *profilePages) renderContent(w http.ResponseWriter, r *http.Request, status int, person *viewer.Person, d contentForm, notice, problem string) {
	t := Theme{}
	for _, c := range person.Contacts {
		if ev, err := p.Ops.OwnContactEvent(r.Context(), person, c.ContactID); err == nil && ev.ID == d.C.EventID {
			t = themeOfEvent(ev)
			break
		}
	}
	if problem == "" && !d.C.Editable && d.C.ClosedReason != nil {
		problem = *d.C.ClosedReason
	}
	Render(w, status, Page{Title: d.C.Code + " — session content", Theme: t, Person: person, Notice: notice, Error: problem,
		Content: "profile-content", Data: d})
}

func (p *profilePages) saveContent(w http.ResponseWriter, r *http.Request) {
	person, _, ok := p.signedIn(w, r)
	if !ok {
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBody)
	if err := r.ParseForm(); err != nil {
		p.fail(w, r, person, Theme{}, apperr.Invalid("The form could not be read: send it again"))
		return
	}
	id := chi.URLParam(r, "id")
	title, desc := r.PostForm.Get("title"), r.PostForm.Get("description")
	c, err := p.Ops.UpdateOwnSessionContent(r.Context(), person, id, model.MySessionContentInput{Title: title, Description: &desc})
	if err == nil {
		done := "saved"
		if c.ContentReviewStatus == "pending_review" {
			done = "pending"
		}
		http.Redirect(w, r, "/portal/sessions/"+c.SessionID+"/content?done="+done, http.StatusSeeOther)
		return
	}
	e, ok := apperr.As(err)
	if !ok {
		p.fail(w, r, person, Theme{}, err)
		return
	}
	cur, cerr := p.Ops.OwnSessionContent(r.Context(), person, id)
	if cerr != nil {
		p.fail(w, r, person, Theme{}, cerr)
		return
	}
	errs := map[string]string{}
	if f := operation.FieldOf(err); f != "" {
		errs[f] = e.Message
	}
	if !cur.Editable {
		// Closed or locked: the page shows what is stored, not a text that will not be.
		title, desc = cur.Title, ""
		if cur.Description != nil {
			desc = *cur.Description
		}
	}
	p.renderContent(w, r, e.Status, person, contentForm{C: cur, Title: title, Desc: desc, Errors: errs}, "",
		"Your changes were not saved: "+strings.TrimSuffix(e.Message, "."))
}
