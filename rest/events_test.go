package rest_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/dbx"
	"github.com/podium/podium/ent/event"
	"github.com/podium/podium/graph/access"
)

// Tests of docs/rest-api.md §4 "Events" and GET /organization.

func TestCreateEvent(t *testing.T) {
	t.Parallel()
	b := setup(t)

	t.Run("Defaults", func(t *testing.T) {
		ev := b.createEvent(b.acme, "GopherCon EU 2027")
		require.Equal(t, b.acmeOrg, ev["organizationId"])
		require.Equal(t, "gophercon-eu-2027", ev["slug"])
		require.Equal(t, "conference", ev["type"])
		require.Equal(t, "Europe/Berlin", ev["timezone"])
		require.Equal(t, "2027-09-10T09:00:00.000Z", ev["startsAt"])
		require.Equal(t, "2027-09-12T17:00:00.000Z", ev["endsAt"])
		require.Equal(t, int64(3), num(t, ev, "defaultSubmissionLimit"))
		require.Equal(t, true, ev["speakerConfirmationEnabled"])
		require.Equal(t, false, ev["agendaDirty"])
		require.Equal(t, []any{}, ev["publishedAgenda"])
		require.Equal(t, ev["createdAt"], ev["updatedAt"])

		got := b.must(http.StatusOK, http.MethodGet, "/api/v1/events/"+str(ev, "id"), b.acme, nil).Obj()
		require.Equal(t, ev, got)
	})

	t.Run("SlugUniquePerOrganization", func(t *testing.T) {
		require.Equal(t, "devopsdays", str(b.createEvent(b.acme, "DevOpsDays"), "slug"))
		require.Equal(t, "devopsdays-2", str(b.createEvent(b.acme, "DevOpsDays!"), "slug"))
		require.Equal(t, "devopsdays-3", str(b.createEvent(b.acme, "  devopsdays  "), "slug"))
		// Another organization may use the same slug.
		require.Equal(t, "devopsdays", str(b.createEvent(b.globex, "DevOpsDays"), "slug"))
		// A name without letters or digits still gets a slug.
		require.Equal(t, "event", str(b.createEvent(b.acme, "!!!"), "slug"))
	})

	t.Run("NameTrimmed", func(t *testing.T) {
		require.Equal(t, "Spaced", str(b.createEvent(b.acme, "  Spaced  "), "name"))
	})

	t.Run("Validation", func(t *testing.T) {
		valid := func() map[string]any {
			return map[string]any{"name": "X", "type": "meetup", "timezone": "UTC",
				"startsAt": "2027-01-01T10:00:00Z", "endsAt": "2027-01-01T12:00:00Z"}
		}
		for name, tc := range map[string]struct {
			change  func(map[string]any)
			code    string
			message string
		}{
			"EndBeforeStart":  {func(m map[string]any) { m["endsAt"] = "2027-01-01T09:00:00Z" }, "invalid_input", "Event end must be after start"},
			"EndEqualsStart":  {func(m map[string]any) { m["endsAt"] = m["startsAt"] }, "invalid_input", "Event end must be after start"},
			"BadStart":        {func(m map[string]any) { m["startsAt"] = "next tuesday" }, "invalid_input", "startsAt is not a valid ISO date"},
			"BadEnd":          {func(m map[string]any) { m["endsAt"] = "2027-13-45T99:00:00Z" }, "invalid_input", "endsAt is not a valid ISO date"},
			"BadTimezone":     {func(m map[string]any) { m["timezone"] = "Mars/Olympus" }, "invalid_input", "timezone must be an IANA time zone such as Europe/Berlin"},
			"LocalTimezone":   {func(m map[string]any) { m["timezone"] = "Local" }, "invalid_input", "timezone must be an IANA time zone such as Europe/Berlin"},
			"BlankName":       {func(m map[string]any) { m["name"] = "   " }, "invalid_input", "Enter an event name"},
			"LongName":        {func(m map[string]any) { m["name"] = strings.Repeat("x", 201) }, "invalid_input", "Event name must be at most 200 characters"},
			"BadType":         {func(m map[string]any) { m["type"] = "party" }, "invalid_body", "type must be one of conference, summit, meetup"},
			"MissingTimezone": {func(m map[string]any) { delete(m, "timezone") }, "invalid_body", "timezone is required"},
			"NullName":        {func(m map[string]any) { m["name"] = nil }, "invalid_body", "name must not be null"},
		} {
			body := valid()
			tc.change(body)
			r := b.do(http.MethodPost, "/api/v1/events", b.acme, body)
			b.requireError(r, http.StatusBadRequest, tc.code)
			if tc.message != "" {
				require.Equal(t, tc.message, r.ErrMessage(), name)
			}
		}
		// Offsets and dates without a time are ISO dates too.
		body := valid()
		body["startsAt"], body["endsAt"] = "2027-01-01T10:00:00+02:00", "2027-01-02"
		ev := b.must(http.StatusCreated, http.MethodPost, "/api/v1/events", b.acme, body).Obj()
		require.Equal(t, "2027-01-01T08:00:00.000Z", ev["startsAt"])
		require.Equal(t, "2027-01-02T00:00:00.000Z", ev["endsAt"])
	})
}

func TestListEvents(t *testing.T) {
	t.Parallel()
	b := setup(t)

	late := b.must(http.StatusCreated, http.MethodPost, "/api/v1/events", b.acme, map[string]any{
		"name": "Late", "type": "summit", "timezone": "UTC", "startsAt": "2028-05-01T09:00:00Z", "endsAt": "2028-05-02T09:00:00Z"}).Obj()
	early := b.createEvent(b.acme, "Early")
	b.createEvent(b.globex, "Not yours")

	list := b.must(http.StatusOK, http.MethodGet, "/api/v1/events", b.acme, nil).List()
	require.Len(t, list, 2)
	require.Equal(t, early["id"], list[0].(map[string]any)["id"])
	require.Equal(t, late["id"], list[1].(map[string]any)["id"])

	empty, _ := b.newKey("Empty Inc")
	require.Equal(t, []any{}, b.must(http.StatusOK, http.MethodGet, "/api/v1/events", empty, nil).JSON)
}

func TestUpdateEvent(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ev := b.createEvent(b.acme, "Patchable")
	path := "/api/v1/events/" + str(ev, "id")

	t.Run("PartialKeepsTheRest", func(t *testing.T) {
		time.Sleep(2 * time.Millisecond)
		got := b.must(http.StatusOK, http.MethodPatch, path, b.acme, map[string]any{
			"tagline": "Go all the way", "location": "Berlin", "defaultSubmissionLimit": 5,
		}).Obj()
		require.Equal(t, "Go all the way", got["tagline"])
		require.Equal(t, "Berlin", got["location"])
		require.Equal(t, int64(5), num(t, got, "defaultSubmissionLimit"))
		for _, key := range []string{"name", "slug", "type", "timezone", "startsAt", "endsAt", "createdAt", "description"} {
			require.Equal(t, ev[key], got[key], key)
		}
		require.NotEqual(t, ev["updatedAt"], got["updatedAt"])
	})

	t.Run("NullClearsNullable", func(t *testing.T) {
		got := b.must(http.StatusOK, http.MethodPatch, path, b.acme, map[string]any{"tagline": nil, "websiteUrl": "https://gophercon.eu"}).Obj()
		require.Nil(t, got["tagline"])
		require.Equal(t, "Berlin", got["location"])
		require.Equal(t, "https://gophercon.eu", got["websiteUrl"])
	})

	t.Run("EmptyBodyChangesNothing", func(t *testing.T) {
		before := b.must(http.StatusOK, http.MethodGet, path, b.acme, nil).Obj()
		got := b.must(http.StatusOK, http.MethodPatch, path, b.acme, map[string]any{}).Obj()
		delete(before, "updatedAt")
		delete(got, "updatedAt")
		require.Equal(t, before, got)
	})

	t.Run("Rules", func(t *testing.T) {
		for body, want := range map[string][2]string{
			`{"name":null}`:                       {"invalid_body", "name must not be null"},
			`{"type":null}`:                       {"invalid_body", "type must not be null"},
			`{"startsAt":null}`:                   {"invalid_body", "startsAt must not be null"},
			`{"name":""}`:                         {"invalid_input", "Enter an event name"},
			`{"defaultSubmissionLimit":0}`:        {"invalid_input", "defaultSubmissionLimit must be a whole number of at least 1"},
			`{"defaultSubmissionLimit":1.5}`:      {"invalid_body", "defaultSubmissionLimit must be a whole number between -2147483648 and 2147483647"},
			`{"endsAt":"2027-09-01T00:00:00Z"}`:   {"invalid_input", "Event end must be after start"},
			`{"startsAt":"2030-01-01T00:00:00Z"}`: {"invalid_input", "Event end must be after start"},
			`{"startsAt":"soon"}`:                 {"invalid_input", "startsAt is not a valid ISO date"},
			`{"timezone":"Europe/Atlantis"}`:      {"invalid_input", "timezone must be an IANA time zone such as Europe/Berlin"},
			`{"type":"festival"}`:                 {"invalid_body", "type must be one of conference, summit, meetup"},
			`{"websiteUrl":42}`:                   {"invalid_body", "websiteUrl must be a string"},
		} {
			r := b.do(http.MethodPatch, path, b.acme, body)
			b.requireError(r, http.StatusBadRequest, want[0])
			require.Equal(t, want[1], r.ErrMessage(), body)
		}
		// Nothing of the refused patches was stored.
		got := b.must(http.StatusOK, http.MethodGet, path, b.acme, nil).Obj()
		require.Equal(t, "Patchable", got["name"])
		require.Equal(t, ev["startsAt"], got["startsAt"])
	})

	t.Run("MovingBothDates", func(t *testing.T) {
		got := b.must(http.StatusOK, http.MethodPatch, path, b.acme, map[string]any{
			"startsAt": "2030-01-01T00:00:00Z", "endsAt": "2030-01-03T00:00:00Z"}).Obj()
		require.Equal(t, "2030-01-01T00:00:00.000Z", got["startsAt"])
	})

	t.Run("OtherOrganization", func(t *testing.T) {
		b.requireError(b.do(http.MethodPatch, path, b.globex, map[string]any{"name": "Mine"}), http.StatusForbidden, "forbidden")
	})
}

func TestGetOrganization(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := b.sys()

	owner, err := b.db.Ent.User.Create().SetEmail("ada@acme.test").SetName("Ada Lovelace").Save(ctx)
	require.NoError(t, err)
	_, err = b.db.Ent.OrganizationMember.Create().SetOrganizationID(b.acmeOrg).SetUserID(owner.ID).SetRole("owner").Save(ctx)
	require.NoError(t, err)
	_, err = b.db.Ent.OrganizationInvitation.Create().SetOrganizationID(b.acmeOrg).SetEmail("grace@acme.test").
		SetRole("admin").SetExpiresAt(time.Now().Add(48 * time.Hour)).Save(ctx)
	require.NoError(t, err)
	_, err = b.db.Ent.OrganizationInvitation.Create().SetOrganizationID(b.acmeOrg).SetEmail("old@acme.test").
		SetRole("member").SetExpiresAt(time.Now().Add(-time.Hour)).Save(ctx)
	require.NoError(t, err)

	got := b.must(http.StatusOK, http.MethodGet, "/api/v1/organization", b.acme, nil).Obj()
	org := got["organization"].(map[string]any)
	require.Equal(t, map[string]any{"id": b.acmeOrg, "name": "Acme", "slug": "acme", "logo": nil}, org)
	require.Equal(t, "admin", got["viewerRole"])
	members := got["members"].([]any)
	require.Len(t, members, 1)
	m := members[0].(map[string]any)
	require.Equal(t, owner.ID, m["userId"])
	require.Equal(t, "Ada Lovelace", m["name"])
	require.Equal(t, "owner", m["role"])
	require.Contains(t, m, "image")
	invitations := got["pendingInvitations"].([]any)
	require.Len(t, invitations, 1)
	require.Equal(t, "grace@acme.test", invitations[0].(map[string]any)["email"])

	other := b.must(http.StatusOK, http.MethodGet, "/api/v1/organization", b.globex, nil).Obj()
	require.Equal(t, b.globexOrg, other["organization"].(map[string]any)["id"])
	require.Equal(t, []any{}, other["members"])
	require.Equal(t, []any{}, other["pendingInvitations"])
}

// TestEventReadIsEnts: access.Event reads an event with a statement written once
// (ent.EventClient.ReadOne) rather than ent's query builder: it must answer exactly what the builder
// does, every field — JSON ones included — and nothing for another organization.
func TestEventReadIsEnts(t *testing.T) {
	t.Parallel()
	b := setup(t)
	w := b.world()
	b.must(http.StatusOK, http.MethodPatch, w.base, b.acme, map[string]any{"replyToEmail": "program@example.test"})
	b.gqlOK(b.acme, saveChasersDoc, map[string]any{"e": w.event, "in": map[string]any{"quietStart": 1320, "quietEnd": 480,
		"dailyCap": 2, "rules": []any{}}})
	ctx := b.scopeOf(w.event)
	got, err := access.Event(ctx, b.db.Ent, w.event)
	require.NoError(t, err)
	want, err := b.db.Ent.Event.Query().Where(event.ID(w.event)).Only(ctx)
	require.NoError(t, err)
	// Every exported field (ent's config holds funcs, which never compare equal).
	wantJSON, err := json.Marshal(want)
	require.NoError(t, err)
	gotJSON, err := json.Marshal(got)
	require.NoError(t, err)
	require.JSONEq(t, string(wantJSON), string(gotJSON))
	require.NotNil(t, got.ReplyToEmail)
	require.Equal(t, 2, got.Chasers.DailyCap)
	// In a transaction, on its connection.
	require.NoError(t, b.db.InTx(ctx, func(ctx context.Context) error {
		in, err := access.Event(ctx, dbx.TxFromContext(ctx).Ent(), w.event)
		require.NoError(t, err)
		require.Equal(t, want.UpdatedAt, in.UpdatedAt)
		return nil
	}))
	_, err = access.Event(b.scopeOf(b.worldIn("Other").event), b.db.Ent, "evt_0000000000000000000000000")
	require.Error(t, err)
}
