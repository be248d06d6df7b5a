package operation

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/podium/podium/graph/model"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/contact"
	"github.com/podium/podium/ent/event"
	"github.com/podium/podium/ent/form"
	"github.com/podium/podium/ent/schema"
	"github.com/podium/podium/ent/schema/pid"
	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/ent/submission"
	"github.com/podium/podium/ent/submissionparticipant"
	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/graph/apperr"
	"github.com/podium/podium/graph/files"
)

// A speaker's own profile and session content, and the organizers' review of what the public
// sees (docs/profile-review.md). Each operation takes the caller; a speaker reaches only the
// contacts whose address is theirs and the sessions those contacts take part in.

// gatedKeys are the profile fields the public sees, as approvedProfile names them. Once a speaker
// has an accepted session, a change to one of them waits for the organizers.
var gatedKeys = []string{"firstName", "lastName", "pronouns", "bio", "linkedinUrl", "twitterUrl",
	"facebookUrl", "websiteUrl", "headshotUrl", "headshotKey"}

var (
	errNotASpeaker       = apperr.Forbidden("Sign in with your email address to edit your speaker profile")
	errProfileNotPending = apperr.Conflict(apperr.CodeConflict, "This profile has no change waiting for approval")
	errContentNotPending = apperr.Conflict(apperr.CodeConflict, "This session has no content change waiting for approval")
)

// gatedProfile is the live values of ct's gated fields, as approvedProfile holds them.
func gatedProfile(ct *ent.Contact) map[string]any {
	opt := func(s *string) any {
		if s == nil {
			return nil
		}
		return *s
	}
	return map[string]any{"firstName": ct.FirstName, "lastName": ct.LastName, "pronouns": opt(ct.Pronouns),
		"bio": opt(ct.Bio), "linkedinUrl": opt(ct.LinkedinURL), "twitterUrl": opt(ct.TwitterURL),
		"facebookUrl": opt(ct.FacebookURL), "websiteUrl": opt(ct.WebsiteURL), "headshotUrl": opt(ct.HeadshotURL),
		"headshotKey": opt(ct.HeadshotKey)}
}

// OwnContactScope finds the caller's contact id among their contacts and returns a context in its
// organization.
func OwnContactScope(ctx context.Context, person *viewer.Person, contactID string) (context.Context, error) {
	if person == nil {
		return nil, errNotASpeaker
	}
	for _, c := range person.Contacts {
		if c.ContactID == contactID {
			return inOrganization(viewer.NewContext(ctx, &viewer.Viewer{Person: person}), c.OrganizationID), nil
		}
	}
	return nil, errSpeakerContactNotFound
}

// lockOwnContact reads the caller's contact for an update, checking again that its address is theirs.
func lockOwnContact(ctx context.Context, c *ent.Client, person *viewer.Person, id string) (*ent.Contact, error) {
	ct, err := c.Contact.Query().Where(contact.ID(id), contact.EmailEqualFold(person.Email)).ForUpdate().Only(ctx)
	if ent.IsNotFound(err) {
		return nil, errSpeakerContactNotFound
	}
	return ct, err
}

// profileReviewed reports whether ct's public fields go to review: ct takes part in an accepted
// session (a cancelled one included).
func profileReviewed(ctx context.Context, c *ent.Client, ct *ent.Contact) (bool, error) {
	return c.Submission.Query().Where(submission.EventID(ct.EventID), submission.StatusEQ(submission.StatusAccepted),
		submission.HasParticipantsWith(submissionparticipant.ContactID(ct.ID))).Exist(ctx)
}

func (r *Service) toMyProfile(ct *ent.Contact, reviewed bool) *model.MyProfile {
	p := &model.MyProfile{ContactID: ct.ID, EventID: ct.EventID, Email: ct.Email, Title: ct.Title, Company: ct.Company,
		FirstName: ct.FirstName, LastName: ct.LastName, Salutation: ct.Salutation, Honorific: ct.Honorific,
		Pronouns: ct.Pronouns, Gender: ct.Gender, Bio: ct.Bio, LinkedinURL: ct.LinkedinURL, TwitterURL: ct.TwitterURL,
		FacebookURL: ct.FacebookURL, WebsiteURL: ct.WebsiteURL, HeadshotDownloadURL: r.SignedLink(ct.HeadshotKey),
		DietaryRequirements: ct.DietaryRequirements.String(), ProfileReviewStatus: ct.ProfileReviewStatus.String(),
		ApprovedProfile: ct.ApprovedProfile, Reviewed: reviewed}
	if ct.TshirtSize != nil {
		s := ct.TshirtSize.String()
		p.TshirtSize = &s
	}
	if p.ApprovedProfile == nil {
		p.ApprovedProfile = map[string]any{}
	}
	return p
}

// OwnProfile is the caller's profile in the event of one of their contacts.
func (r *Service) OwnProfile(ctx context.Context, person *viewer.Person, contactID string) (*model.MyProfile, error) {
	sctx, err := OwnContactScope(ctx, person, contactID)
	if err != nil {
		return nil, err
	}
	var out *model.MyProfile
	err = r.DB.InTx(sctx, func(ctx context.Context) error {
		c := r.ClientOf(ctx)
		ct, err := c.Contact.Query().Where(contact.ID(contactID), contact.EmailEqualFold(person.Email)).Only(ctx)
		if ent.IsNotFound(err) {
			return errSpeakerContactNotFound
		}
		if err != nil {
			return err
		}
		reviewed, err := profileReviewed(ctx, c, ct)
		if err != nil {
			return err
		}
		out = r.toMyProfile(ct, reviewed)
		return nil
	})
	return out, err
}

// profileChange is a checked MyProfileInput: the values to write, by approvedProfile's names for
// the gated ones.
type profileChange struct {
	set   map[string]*string
	diet  *contact.DietaryRequirements
	shirt *string
}

// profileFields are the text fields a speaker edits: name, label, limit, whether it is a link.
var profileFields = []struct {
	key, label string
	limit      int
	link       bool
}{
	{"firstName", "First name", 200, false}, {"lastName", "Last name", 200, false},
	{"salutation", "Salutation", 100, false}, {"honorific", "Honorific", 100, false},
	{"pronouns", "Pronouns", 100, false}, {"gender", "Gender", 100, false}, {"bio", "Bio", 5000, false},
	{"linkedinUrl", "LinkedIn URL", 2048, true}, {"twitterUrl", "Twitter URL", 2048, true},
	{"facebookUrl", "Facebook URL", 2048, true}, {"websiteUrl", "Website URL", 2048, true},
}

// ProfileFieldError is a refused profile or content field: the page points the field at it.
type ProfileFieldError struct {
	Field string
	Err   *apperr.Error
}

func (e *ProfileFieldError) Error() string { return e.Err.Message }
func (e *ProfileFieldError) Unwrap() error { return e.Err }

// FieldOf is the field a refusal is about, or "".
func FieldOf(err error) string {
	var fe *ProfileFieldError
	if errors.As(err, &fe) {
		return fe.Field
	}
	return ""
}

func fieldErr(key string, err error) error {
	if e, ok := apperr.As(err); ok {
		return &ProfileFieldError{Field: key, Err: e}
	}
	return err
}

func inputValues(in model.MyProfileInput) map[string]*string {
	return map[string]*string{"firstName": in.FirstName, "lastName": in.LastName, "salutation": in.Salutation,
		"honorific": in.Honorific, "pronouns": in.Pronouns, "gender": in.Gender, "bio": in.Bio,
		"linkedinUrl": in.LinkedinURL, "twitterUrl": in.TwitterURL, "facebookUrl": in.FacebookURL,
		"websiteUrl": in.WebsiteURL}
}

// checkProfile checks every field of in: text a person typed, names not empty, links http(s).
func checkProfile(in model.MyProfileInput) (*profileChange, error) {
	vals := inputValues(in)
	ch := &profileChange{set: map[string]*string{}}
	for _, f := range profileFields {
		v := vals[f.key]
		if v == nil {
			continue
		}
		s := strings.TrimSpace(*v)
		var err error
		if f.key == "bio" {
			err = checkText(f.label, s, f.limit)
		} else {
			err = checkLine(f.label, s, f.limit, f.key == "firstName" || f.key == "lastName")
		}
		if err == nil && f.link && s != "" {
			if !schema.IsWebLink(s) { // the schema's rule, checked here to name the field
				err = apperr.Invalid("%s must be a web address starting with https://", f.label)
			}
		}
		if err != nil {
			return nil, fieldErr(f.key, err)
		}
		if s == "" {
			ch.set[f.key] = nil
		} else {
			ch.set[f.key] = &s
		}
	}
	if in.DietaryRequirements != nil {
		d := contact.DietaryRequirements(*in.DietaryRequirements)
		if contact.DietaryRequirementsValidator(d) != nil {
			return nil, fieldErr("dietaryRequirements", apperr.Invalid("Dietary requirements must be one of none, vegetarian, vegan, gluten_free, other"))
		}
		ch.diet = &d
	}
	if in.TshirtSize != nil {
		s := *in.TshirtSize
		if s != "" && contact.TshirtSizeValidator(contact.TshirtSize(s)) != nil {
			return nil, fieldErr("tshirtSize", apperr.Invalid("T-shirt size must be one of XS, S, M, L, XL, XXL"))
		}
		ch.shirt = &s
	}
	return ch, nil
}

// UpdateOwnProfile changes the caller's profile. Once they have an accepted session, a change to
// a gated field is written to the live row and waits for approval: approvedProfile keeps the last
// approved values (or, the first time, the values before the change) and profileReviewStatus
// becomes pending_review. Anything else is saved directly.
func (r *Service) UpdateOwnProfile(ctx context.Context, person *viewer.Person, contactID string, in model.MyProfileInput) (*model.MyProfile, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.MyProfile, error) {
		ch, err := checkProfile(in)
		if err != nil {
			return nil, err
		}
		return r.changeOwnProfile(ctx, person, contactID, func(_ context.Context, ct *ent.Contact, u *ent.ContactUpdateOne) error {
			setProfile(u, ch)
			return nil
		})
	})
}

// UploadOwnHeadshot stores up (an image) as the caller's headshot; it is a gated field.
func (r *Service) UploadOwnHeadshot(ctx context.Context, person *viewer.Person, contactID string, up files.Upload) (*model.MyProfile, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.MyProfile, error) {
		svc, err := r.fileService()
		if err != nil {
			return nil, err
		}
		var old *string
		out, err := r.changeOwnProfile(ctx, person, contactID, func(ctx context.Context, ct *ent.Contact, u *ent.ContactUpdateOne) error {
			stored, err := svc.Put(ctx, files.Image, up, files.Rules{})
			if err != nil {
				return fieldErr("headshot", err)
			}
			old = ct.HeadshotKey
			u.SetHeadshotKey(stored.Key).SetHeadshotURL(r.fileLink(ct.EventID, stored.Key))
			return nil
		})
		if err != nil {
			return nil, err
		}
		// The previous photo goes, unless approvedProfile still shows it to the public.
		if old != nil && out.ApprovedProfile["headshotKey"] != *old {
			sctx, _ := OwnContactScope(ctx, person, contactID)
			if err := svc.DeleteLater(sctx, old); err != nil {
				return nil, err
			}
		}
		return out, nil
	})
}

func (r *Service) changeOwnProfile(ctx context.Context, person *viewer.Person, contactID string,
	change func(context.Context, *ent.Contact, *ent.ContactUpdateOne) error) (*model.MyProfile, error) {
	sctx, err := OwnContactScope(ctx, person, contactID)
	if err != nil {
		return nil, err
	}
	var out *model.MyProfile
	err = r.DB.InTx(sctx, func(ctx context.Context) error {
		c := r.ClientOf(ctx)
		ct, err := lockOwnContact(ctx, c, person, contactID)
		if err != nil {
			return err
		}
		before := gatedProfile(ct)
		u := ct.Update()
		if err := change(ctx, ct, u); err != nil {
			return err
		}
		updated, err := u.Save(ctx)
		if err != nil {
			return err
		}
		reviewed, err := profileReviewed(ctx, c, ct)
		if err != nil {
			return err
		}
		after := gatedProfile(updated)
		if reviewed && !sameValues(before, after) {
			baseline := ct.ApprovedProfile
			if len(baseline) == 0 {
				baseline = before
			}
			updated, err = updated.Update().SetApprovedProfile(baseline).
				SetProfileReviewStatus(contact.ProfileReviewStatusPendingReview).Save(ctx)
			if err != nil {
				return err
			}
		}
		out = r.toMyProfile(updated, reviewed)
		return nil
	})
	return out, err
}

func sameValues(a, b map[string]any) bool {
	for _, k := range gatedKeys {
		if a[k] != b[k] {
			return false
		}
	}
	return true
}

func setProfile(u *ent.ContactUpdateOne, ch *profileChange) {
	set := func(key string, setTo func(string) *ent.ContactUpdateOne, clearIt func() *ent.ContactUpdateOne) {
		v, ok := ch.set[key]
		switch {
		case !ok:
		case v == nil:
			clearIt()
		default:
			setTo(*v)
		}
	}
	if v := ch.set["firstName"]; v != nil {
		u.SetFirstName(*v)
	}
	if v := ch.set["lastName"]; v != nil {
		u.SetLastName(*v)
	}
	set("salutation", u.SetSalutation, u.ClearSalutation)
	set("honorific", u.SetHonorific, u.ClearHonorific)
	set("pronouns", u.SetPronouns, u.ClearPronouns)
	set("gender", u.SetGender, u.ClearGender)
	set("bio", u.SetBio, u.ClearBio)
	set("linkedinUrl", u.SetLinkedinURL, u.ClearLinkedinURL)
	set("twitterUrl", u.SetTwitterURL, u.ClearTwitterURL)
	set("facebookUrl", u.SetFacebookURL, u.ClearFacebookURL)
	set("websiteUrl", u.SetWebsiteURL, u.ClearWebsiteURL)
	if ch.diet != nil {
		u.SetDietaryRequirements(*ch.diet)
	}
	if ch.shirt != nil {
		if *ch.shirt == "" {
			u.ClearTshirtSize()
		} else {
			u.SetTshirtSize(contact.TshirtSize(*ch.shirt))
		}
	}
}

// ReviewSpeakerProfile approves or rejects a speaker's pending profile changes. Approving folds
// the live public fields into approvedProfile; rejecting puts approvedProfile's values back on
// the live row. A profile with nothing pending (approved twice, or in two tabs) is a conflict.
func (r *Service) ReviewSpeakerProfile(ctx context.Context, eventID, contactID string, approve bool) (*ent.Contact, error) {
	var out *ent.Contact
	err := r.DB.InTx(ctx, func(ctx context.Context) error {
		c := r.ClientOf(ctx)
		ev, err := access.Event(ctx, c, eventID)
		if err != nil {
			return err
		}
		if !pid.Plausible(contactID) {
			return apperr.NotFound("Speaker")
		}
		ct, err := c.Contact.Query().Where(contact.ID(contactID), contact.EventID(ev.ID)).ForUpdate().Only(ctx)
		if ent.IsNotFound(err) {
			return apperr.NotFound("Speaker")
		}
		if err != nil {
			return err
		}
		if ct.ProfileReviewStatus != contact.ProfileReviewStatusPendingReview {
			return errProfileNotPending
		}
		u := ct.Update()
		if approve {
			u.SetApprovedProfile(gatedProfile(ct)).SetProfileReviewStatus(contact.ProfileReviewStatusApproved)
		} else {
			revertProfile(u, ct.ApprovedProfile)
			u.SetProfileReviewStatus(contact.ProfileReviewStatusRejected)
		}
		out, err = u.Save(ctx)
		return err
	})
	return out, err
}

// revertProfile puts the approved values of the gated fields back.
func revertProfile(u *ent.ContactUpdateOne, approved map[string]any) {
	str := func(k string) *string {
		if s, ok := approved[k].(string); ok {
			return &s
		}
		return nil
	}
	if s := str("firstName"); s != nil {
		u.SetFirstName(*s)
	}
	if s := str("lastName"); s != nil {
		u.SetLastName(*s)
	}
	u.SetNillablePronouns(str("pronouns")).SetNillableBio(str("bio")).SetNillableLinkedinURL(str("linkedinUrl")).
		SetNillableTwitterURL(str("twitterUrl")).SetNillableFacebookURL(str("facebookUrl")).
		SetNillableWebsiteURL(str("websiteUrl")).SetNillableHeadshotURL(str("headshotUrl")).
		SetNillableHeadshotKey(str("headshotKey"))
	for k, clearIt := range map[string]func() *ent.ContactUpdateOne{"pronouns": u.ClearPronouns, "bio": u.ClearBio,
		"linkedinUrl": u.ClearLinkedinURL, "twitterUrl": u.ClearTwitterURL, "facebookUrl": u.ClearFacebookURL,
		"websiteUrl": u.ClearWebsiteURL, "headshotUrl": u.ClearHeadshotURL, "headshotKey": u.ClearHeadshotKey} {
		if str(k) == nil {
			clearIt()
		}
	}
}

// Session content.

// ownSession finds one of the caller's sessions: the organization context, the session (locked
// when lock is set) and the caller's contact in it.
func (r *Service) ownSession(ctx context.Context, person *viewer.Person, sessionID string, lock bool) (*ent.Submission, error) {
	c := r.ClientOf(ctx)
	q := c.Submission.Query().Where(submission.ID(sessionID), submission.HasParticipantsWith(
		submissionparticipant.HasContactWith(contact.EmailEqualFold(person.Email))))
	if lock {
		q = q.ForUpdate()
	}
	s, err := q.Only(ctx)
	if ent.IsNotFound(err) {
		return nil, errSpeakerSessionNotFound
	}
	return s, err
}

// sessionScopes are the organization contexts where the caller speaks.
func sessionScopes(ctx context.Context, person *viewer.Person) ([]context.Context, error) {
	if person == nil {
		return nil, errNotASpeaker
	}
	seen := map[string]bool{}
	var out []context.Context
	for _, c := range person.Contacts {
		if !seen[c.OrganizationID] {
			seen[c.OrganizationID] = true
			out = append(out, inOrganization(viewer.NewContext(ctx, &viewer.Viewer{Person: person}), c.OrganizationID))
		}
	}
	return out, nil
}

// Why a speaker may not change a session's content; each message is shown as it is on the page.
const (
	contentWithdrawn = "This proposal was withdrawn."
	contentCancelled = "This session is cancelled."
	contentManual    = "The organizers manage this session's content: write to them to change it."
	contentFormShut  = "This submission form is closed. Your content is now read-only."
	contentLocked    = "The organizers have locked the content of accepted sessions. Your content is now read-only: " +
		"write to them to change it."
)

// contentRefusal says why the caller may not change s's content now, or nil when they may. A
// proposal takes changes while its form does; an accepted session (edits going to review) until
// the organizers lock its event's content, however long its form has been closed, since
// acceptances come after the form closes. A session that came from no form is the organizers'.
// f is s's form, nil when it came from none.
func contentRefusal(ev *ent.Event, s *ent.Submission, f *ent.Form, now time.Time) *apperr.Error {
	switch {
	case s.Status == submission.StatusWithdrawn:
		return apperr.Conflict(apperr.CodeFormClosed, contentWithdrawn)
	case s.CancelledAt != nil:
		return apperr.Conflict(apperr.CodeFormClosed, contentCancelled)
	case s.SourceFormID == nil || f == nil:
		return apperr.Conflict(apperr.CodeFormClosed, contentManual)
	case s.Status == submission.StatusAccepted && ev.SpeakerContentLocked:
		return apperr.Conflict(apperr.CodeContentLocked, contentLocked)
	case s.Status == submission.StatusAccepted:
		return nil
	case !formAccepting(f, now):
		return apperr.Conflict(apperr.CodeFormClosed, contentFormShut)
	}
	return nil
}

// contentClosed is contentRefusal for one session, reading its event and form. With share set
// the event row is read FOR SHARE, so an edit and lockSpeakerContent (an UPDATE of the row) are
// serialized: an edit either commits before the lock or reads it.
func contentClosed(ctx context.Context, c *ent.Client, s *ent.Submission, now time.Time, share bool) (*apperr.Error, error) {
	q := c.Event.Query().Where(event.ID(s.EventID))
	if share {
		q = q.ForShare()
	}
	ev, err := q.Only(ctx)
	if err != nil {
		return nil, err
	}
	var f *ent.Form
	if s.SourceFormID != nil {
		if f, err = c.Form.Query().Where(form.ID(*s.SourceFormID)).Only(ctx); err != nil {
			return nil, err
		}
	}
	return contentRefusal(ev, s, f, now), nil
}

func toMyContent(s *ent.Submission, closed *apperr.Error) *model.MySessionContent {
	out := &model.MySessionContent{SessionID: s.ID, EventID: s.EventID, Code: s.Code, Title: s.Title,
		ContentReviewStatus: s.ContentReviewStatus.String(), ApprovedSnapshot: approvedSnapshot(s),
		Editable: closed == nil, Reviewed: s.Status == submission.StatusAccepted}
	if s.Description != "" {
		d := s.Description
		out.Description = &d
	}
	if closed != nil {
		out.ClosedReason = &closed.Message
	}
	return out
}

// OwnSessionContent is what the caller may edit of one of their sessions.
func (r *Service) OwnSessionContent(ctx context.Context, person *viewer.Person, sessionID string) (*model.MySessionContent, error) {
	return r.withOwnSession(ctx, person, sessionID, false, func(ctx context.Context, s *ent.Submission, closed *apperr.Error) (*ent.Submission, error) {
		return s, nil
	})
}

// UpdateOwnSessionContent changes the title and description of one of the caller's sessions.
func (r *Service) UpdateOwnSessionContent(ctx context.Context, person *viewer.Person, sessionID string, in model.MySessionContentInput) (*model.MySessionContent, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.MySessionContent, error) {
		title := strings.TrimSpace(in.Title)
		if err := checkLine("Title", title, 500, true); err != nil {
			return nil, fieldErr("title", err)
		}
		desc := ""
		if in.Description != nil {
			desc = strings.TrimSpace(*in.Description)
		}
		if err := checkText("Description", desc, 50000); err != nil {
			return nil, fieldErr("description", err)
		}
		return r.withOwnSession(ctx, person, sessionID, true, func(ctx context.Context, s *ent.Submission, closed *apperr.Error) (*ent.Submission, error) {
			if closed != nil {
				return nil, closed
			}
			if s.Title == title && s.Description == desc {
				return s, nil
			}
			u := s.Update().SetTitle(title).SetDescription(desc)
			if s.Status == submission.StatusAccepted {
				u.SetContentReviewStatus(submission.ContentReviewStatusPendingReview)
			} else {
				snap := snapshot(s)
				snap["title"], snap["description"] = title, desc
				approveContent(u, snap)
			}
			return u.Save(ctx)
		})
	})
}

// withOwnSession runs do on one of the caller's sessions, in the organization where it is, with
// why its content is closed (nil when open); lock is set for a write.
func (r *Service) withOwnSession(ctx context.Context, person *viewer.Person, sessionID string, lock bool,
	do func(context.Context, *ent.Submission, *apperr.Error) (*ent.Submission, error)) (*model.MySessionContent, error) {
	scopes, err := sessionScopes(ctx, person)
	if err != nil {
		return nil, err
	}
	if !pid.Plausible(sessionID) {
		return nil, errSpeakerSessionNotFound
	}
	for _, sctx := range scopes {
		var out *model.MySessionContent
		err := r.DB.InTx(sctx, func(ctx context.Context) error {
			s, err := r.ownSession(ctx, person, sessionID, lock)
			if err != nil {
				return err
			}
			closed, err := contentClosed(ctx, r.ClientOf(ctx), s, time.Now(), lock)
			if err != nil {
				return err
			}
			s, err = do(ctx, s, closed)
			if err != nil {
				return err
			}
			if closed == nil {
				closed, err = contentClosed(ctx, r.ClientOf(ctx), s, time.Now(), false)
			}
			out = toMyContent(s, closed)
			return err
		})
		if errors.Is(err, errSpeakerSessionNotFound) {
			continue
		}
		return out, err
	}
	return nil, errSpeakerSessionNotFound
}

// ReviewSessionContent approves or rejects a session's pending content. Approving snapshots the
// live content; rejecting puts the snapshot's content back in the editable fields, so that what
// the speaker and the organizers see again is what the public sees (with nothing approved, as
// after a review-first acceptance, the live content stays and the session stays unpublished).
func (r *Service) ReviewSessionContent(ctx context.Context, eventID, sessionID string, approve bool) (*model.Session, error) {
	err := r.DB.InTx(ctx, func(ctx context.Context) error {
		c := r.ClientOf(ctx)
		ev, err := access.Event(ctx, c, eventID)
		if err != nil {
			return err
		}
		s, err := lockSubmission(ctx, c, ev.ID, sessionID, errSessionNotFound)
		if err != nil {
			return err
		}
		if s.ContentReviewStatus != submission.ContentReviewStatusPendingReview {
			return errContentNotPending
		}
		u := s.Update()
		if approve {
			approveContent(u, snapshot(s))
		} else {
			restoreContent(u, s.ApprovedSnapshot)
			u.SetContentReviewStatus(submission.ContentReviewStatusRejected)
		}
		_, err = u.Save(ctx)
		return err
	})
	if err != nil {
		return nil, err
	}
	return r.Session(ctx, eventID, sessionID)
}

// recordApprovedProfilesSQL approves, for the contacts $2 of the event $1 with no approved profile yet, their
// gated fields as they are (the keys of gatedProfile). One statement for a whole decision.
const recordApprovedProfilesSQL = `
UPDATE contacts SET updated_at = now(), approved_profile = jsonb_build_object(
  'firstName', first_name, 'lastName', last_name, 'pronouns', pronouns, 'bio', bio,
  'linkedinUrl', linkedin_url, 'twitterUrl', twitter_url, 'facebookUrl', facebook_url,
  'websiteUrl', website_url, 'headshotUrl', headshot_url, 'headshotKey', headshot_key)
WHERE event_id = $1 AND id = ANY($2) AND approved_profile = '{}'::jsonb`

// recordApprovedProfiles approves the current profiles of contacts becoming speakers of an
// accepted session — by a decision, a session organizers create, or organizers naming its
// speakers — unless they have an approved profile already. From then on the public reads the
// approved profile only (public_view.go) and the speaker's own changes wait for review. A
// placeholder name is recorded as it is; the public view still refuses it (placeholderName).
func (r *Service) recordApprovedProfiles(ctx context.Context, eventID string, contactIDs []string) error {
	if len(contactIDs) == 0 {
		return nil
	}
	_, err := r.sql(ctx).Exec(ctx, recordApprovedProfilesSQL, eventID, contactIDs)
	return err
}

// approveOrganizerEdits folds into approvedProfile the gated fields an organizer changed, from
// before to after: what organizers write is approved. A speaker's change still waiting keeps
// waiting, and a contact with nothing approved yet is left to recordApprovedProfiles.
func approveOrganizerEdits(ctx context.Context, before, after *ent.Contact) (*ent.Contact, error) {
	if len(before.ApprovedProfile) == 0 {
		return after, nil
	}
	was, now := gatedProfile(before), gatedProfile(after)
	approved := make(map[string]any, len(before.ApprovedProfile))
	for k, v := range before.ApprovedProfile {
		approved[k] = v
	}
	changed := false
	for _, k := range gatedKeys {
		if was[k] != now[k] {
			approved[k], changed = now[k], true
		}
	}
	if !changed {
		return after, nil
	}
	return after.Update().SetApprovedProfile(approved).Save(ctx)
}

// OwnContactEvent is the event of one of the caller's contacts (for the pages' theme).
func (r *Service) OwnContactEvent(ctx context.Context, person *viewer.Person, contactID string) (*ent.Event, error) {
	sctx, err := OwnContactScope(ctx, person, contactID)
	if err != nil {
		return nil, err
	}
	ct, err := r.Client.Contact.Query().Where(contact.ID(contactID), contact.EmailEqualFold(person.Email)).
		WithEvent().Only(sctx)
	if ent.IsNotFound(err) {
		return nil, errSpeakerContactNotFound
	}
	if err != nil {
		return nil, err
	}
	return ct.Edges.Event, nil
}
