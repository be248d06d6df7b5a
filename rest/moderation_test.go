package rest_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// publicSurfaces reads everything the public (or a page the public sees) is served from an event
// with a published agenda and an enabled widget: the program, the event's published agenda, the
// agenda feeds, and the widget's page in every view, its JSON and its iCalendar feed. Calendar
// lines are unfolded, so that a folded line cannot hide a word.
func (b *testBundle) publicSurfaces(w world, widget string) map[string]string {
	b.t.Helper()
	unfold := func(s string) string { return strings.ReplaceAll(s, "\r\n ", "") }
	out := map[string]string{
		"program":         b.must(http.StatusOK, http.MethodGet, w.base+"/program", b.acme, nil).Raw,
		"publishedAgenda": b.must(http.StatusOK, http.MethodGet, w.base, b.acme, nil).Raw,
		"agenda.json":     b.must(http.StatusOK, http.MethodGet, "/api/v1/public/events/"+w.event+"/agenda.json", "", nil).Raw,
	}
	rec := b.sendRaw(b.request(http.MethodGet, "/api/v1/public/events/"+w.event+"/agenda.ics", ""))
	require.Equal(b.t, http.StatusOK, rec.Code)
	out["agenda.ics"] = unfold(rec.Body.String())
	for _, path := range []string{"", "?view=sessions", "?view=speakers", "?view=speaker_gallery", "?view=itinerary", "/json", "/ics"} {
		rec := b.page("/embed/" + widget + path)
		require.Equal(b.t, http.StatusOK, rec.Code, path)
		out["embed"+path] = unfold(rec.Body.String())
	}
	return out
}

// TestPublicSurfacesShowApprovedContent: whatever is public shows approved content only
// (docs/profile-review.md "What the public sees"). One session is accepted the default way, edited
// by its speaker (and behind the review's back, as another writer could), rejected, edited again
// and approved; its speaker's name and bio go the same way. At each step every public surface
// shows the approved version, before and after the agenda is published again. A session accepted
// for review first shows nowhere until approved, and a speaker whose only name is their email
// address's local part is never listed.
func TestPublicSurfacesShowApprovedContent(t *testing.T) {
	t.Parallel()
	b := setup(t)
	w := b.world()
	hall := str(b.saveItem(b.acme, w.event, map[string]any{"kind": "room", "name": "Hall"}), "id")
	nameless := b.speaker(w.base, "x7q9nameless", "-", "x7q9nameless@example.test")
	session := b.proposeIn(w, "Accepted title", "Accepted description", []string{w.track1}, w.ada, nameless)
	held := b.proposeIn(w, "Held title", "Held description", nil, w.grace)
	_, err := b.db.System.Exec(b.sys(), `UPDATE contacts SET bio = 'Approved bio' WHERE id = $1`, w.ada)
	require.NoError(t, err)

	// Accepted the default way: REST clients see contentReviewStatus pending_review (the
	// contract), and what was accepted is recorded as the approved snapshot.
	b.must(http.StatusOK, http.MethodPost, w.base+"/submissions/decide", b.acme, map[string]any{
		"submissionIds": []any{session}, "decision": "accept", "feedback": ""})
	b.must(http.StatusOK, http.MethodPost, w.base+"/submissions/decide", b.acme, map[string]any{
		"submissionIds": []any{held}, "decision": "accept", "feedback": "", "reviewContentFirst": true})
	sessionItem := func(id string) map[string]any {
		t.Helper()
		for _, s := range sessionsOf(b.listSessions(w, "")) {
			if s["id"] == id {
				return s
			}
		}
		require.Failf(t, "no such session", "%s", id)
		return nil
	}
	rec := sessionItem(session)
	require.Equal(t, "pending_review", rec["contentReviewStatus"])
	require.Equal(t, false, rec["publicationApproved"], "the organizers have not looked at it yet")
	row, err := b.db.Ent.Submission.Get(b.sys(), session)
	require.NoError(t, err)
	require.Equal(t, "Accepted title", row.ApprovedSnapshot["title"])
	require.Equal(t, "Accepted description", row.ApprovedSnapshot["description"])
	require.Equal(t, "pending_review", sessionItem(held)["contentReviewStatus"])
	row, err = b.db.Ent.Submission.Get(b.sys(), held)
	require.NoError(t, err)
	require.Empty(t, row.ApprovedSnapshot, "review first: nothing approved yet")

	sched := stage{w: w}
	require.Equal(t, http.StatusOK, b.schedule(sched, session, hall, "2027-09-10T09:00:00Z", "2027-09-10T10:00:00Z").Status)
	require.Equal(t, http.StatusOK, b.schedule(sched, held, hall, "2027-09-10T11:00:00Z", "2027-09-10T12:00:00Z").Status)
	widget := str(b.must(http.StatusCreated, http.MethodPost, w.base+"/widgets", b.acme,
		map[string]any{"name": "Program", "view": "agenda"}).Obj(), "id")
	publish := func() { b.must(http.StatusOK, http.MethodPost, w.base+"/agenda/publish", b.acme, nil) }
	requirePublic := func(step, title, description string) {
		t.Helper()
		for name, body := range b.publicSurfaces(w, widget) {
			if name != "embed?view=speaker_gallery" { // names and bios only
				require.Contains(t, body, title, "%s: %s", step, name)
			}
			require.NotContains(t, body, "Unapproved", "%s: %s", step, name)
			require.NotContains(t, body, "x7q9nameless", "%s: %s shows an email's local part as a name", step, name)
			require.NotContains(t, body, "Held title", "%s: %s shows content nobody approved", step, name)
			switch name {
			case "program", "publishedAgenda", "agenda.json", "agenda.ics", "embed", "embed/json", "embed/ics":
				require.Contains(t, body, description, "%s: %s", step, name)
				require.Contains(t, body, "Lovelace", "%s: %s", step, name)
			}
			if name == "program" || name == "embed?view=speaker_gallery" {
				require.Contains(t, body, "Approved bio", "%s: %s", step, name)
			}
		}
	}
	publish()
	requirePublic("accepted", "Accepted title", "Accepted description")

	// The speaker edits the content and their profile; another writer changes the live rows
	// directly. None of it is public, before or after the next publication.
	ada := b.signIn("ada@example.test")
	editContent := func(title, description string) {
		t.Helper()
		data(t, b.gqlAs(ada, updateContentDoc, map[string]any{"s": session,
			"in": map[string]any{"title": title, "description": description}}), "updateMySessionContent")
	}
	editContent("Unapproved title", "Unapproved description")
	data(t, b.gqlAs(ada, updateProfileDoc, map[string]any{"c": w.ada,
		"in": map[string]any{"lastName": "Unapproved", "bio": "Unapproved bio"}}), "updateMyProfile")
	requirePublic("edited", "Accepted title", "Accepted description")
	publish()
	requirePublic("edited, published again", "Accepted title", "Accepted description")
	_, err = b.db.System.Exec(b.sys(), `UPDATE submissions SET title = 'Unapproved bypass' WHERE id = $1`, session)
	require.NoError(t, err)
	_, err = b.db.System.Exec(b.sys(), `UPDATE contacts SET first_name = 'Unapproved' WHERE id = $1`, w.ada)
	require.NoError(t, err)
	publish()
	requirePublic("written behind the review's back", "Accepted title", "Accepted description")

	// Rejected: the approved version is back in the editable fields too.
	review := func(op, id string) {
		t.Helper()
		doc, key := reviewContentDoc, "s"
		if strings.Contains(op, "Profile") {
			doc, key = reviewProfileDoc, "c"
		}
		data(t, b.gql(b.acme, strings.Replace(doc, "%s", op, 1), map[string]any{"e": w.event, key: id}), op)
	}
	review("rejectSessionContent", session)
	review("rejectSpeakerProfile", w.ada)
	rec = sessionItem(session)
	require.Equal(t, "Accepted title", rec["title"])
	require.Equal(t, "Accepted description", rec["description"])
	require.Equal(t, "rejected", rec["contentReviewStatus"])
	speaker := b.must(http.StatusOK, http.MethodGet, w.base+"/speakers/"+w.ada, b.acme, nil).Obj()
	require.Equal(t, "Lovelace", speaker["lastName"])
	require.Equal(t, "Approved bio", speaker["bio"])
	requirePublic("rejected", "Accepted title", "Accepted description")
	publish()
	requirePublic("rejected, published again", "Accepted title", "Accepted description")

	// Edited again and approved: the program and widgets follow at once; the agenda feeds, a
	// snapshot, at the next publication.
	editContent("Revised title", "Revised description")
	review("approveSessionContent", session)
	surfaces := b.publicSurfaces(w, widget)
	require.Contains(t, surfaces["program"], "Revised title")
	require.Contains(t, surfaces["embed"], "Revised title")
	require.NotContains(t, surfaces["agenda.json"], "Revised title")
	publish()
	requirePublic("approved", "Revised title", "Revised description")

	// The session accepted for review first shows once an organizer approves it.
	review("approveSessionContent", held)
	publish()
	surfaces = b.publicSurfaces(w, widget)
	for _, name := range []string{"program", "agenda.json", "agenda.ics", "embed", "embed/json", "embed/ics"} {
		require.Contains(t, surfaces[name], "Held title", name)
		require.Contains(t, surfaces[name], "Hopper", name)
	}
}
