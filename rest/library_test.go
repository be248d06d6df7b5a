package rest_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/eventmember"
	"github.com/podium/podium/ent/organizationmember"
)

// Tests of docs/rest-api.md §4 "Library".

func TestLibrary(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ev := b.createEvent(b.acme, "Library")
	id := str(ev, "id")
	path := "/api/v1/events/" + id + "/library"

	t.Run("EmptyAtFirst", func(t *testing.T) {
		lib := b.must(http.StatusOK, http.MethodGet, path, b.acme, nil).Obj()
		for _, key := range []string{"tracks", "formats", "rooms", "tags", "levels", "admins"} {
			require.Equal(t, []any{}, lib[key], key)
		}
	})

	t.Run("CreateWithDefaultsAndPositions", func(t *testing.T) {
		backend := b.saveItem(b.acme, id, map[string]any{"kind": "track", "name": "  Backend  "})
		require.Equal(t, "Backend", backend["name"])
		require.Equal(t, "#1d6b4c", backend["color"])
		require.Equal(t, int64(1), num(t, backend, "position"))
		require.Equal(t, id, backend["eventId"])
		require.Regexp(t, isoMillis, backend["createdAt"])

		frontend := b.saveItem(b.acme, id, map[string]any{"kind": "track", "name": "Frontend", "color": "#ff8800"})
		require.Equal(t, "#ff8800", frontend["color"])
		require.Equal(t, int64(2), num(t, frontend, "position"))

		talk := b.saveItem(b.acme, id, map[string]any{"kind": "format", "name": "Talk"})
		require.Equal(t, int64(30), num(t, talk, "durationMinutes"))
		require.Equal(t, int64(1), num(t, talk, "position"))
		workshop := b.saveItem(b.acme, id, map[string]any{"kind": "format", "name": "Workshop", "durationMinutes": 120})
		require.Equal(t, int64(120), num(t, workshop, "durationMinutes"))

		hall := b.saveItem(b.acme, id, map[string]any{"kind": "room", "name": "Hall", "capacity": 300})
		require.Equal(t, int64(300), num(t, hall, "capacity"))

		tag := b.saveItem(b.acme, id, map[string]any{"kind": "tag", "name": "Go"})
		require.Equal(t, []string{"createdAt", "eventId", "id", "name", "position", "updatedAt"}, keys(tag))
		level := b.saveItem(b.acme, id, map[string]any{"kind": "level", "name": "Advanced"})
		require.Equal(t, int64(1), num(t, level, "position"))

		lib := b.must(http.StatusOK, http.MethodGet, path, b.acme, nil).Obj()
		tracks := lib["tracks"].([]any)
		require.Len(t, tracks, 2)
		require.Equal(t, backend["id"], tracks[0].(map[string]any)["id"])
		require.Equal(t, frontend["id"], tracks[1].(map[string]any)["id"])
		require.Len(t, lib["formats"], 2)
		require.Len(t, lib["rooms"], 1)
		require.Len(t, lib["tags"], 1)
		require.Len(t, lib["levels"], 1)
	})

	t.Run("UpdateKeepsPosition", func(t *testing.T) {
		first := b.saveItem(b.acme, id, map[string]any{"kind": "level", "name": "Beginner"})
		b.saveItem(b.acme, id, map[string]any{"kind": "level", "name": "Expert"})
		updated := b.saveItem(b.acme, id, map[string]any{"kind": "level", "id": first["id"], "name": "Novice"})
		require.Equal(t, first["id"], updated["id"])
		require.Equal(t, "Novice", updated["name"])
		require.Equal(t, first["position"], updated["position"])
		require.Equal(t, first["createdAt"], updated["createdAt"])

		room := b.saveItem(b.acme, id, map[string]any{"kind": "room", "name": "Loft", "capacity": 40})
		kept := b.saveItem(b.acme, id, map[string]any{"kind": "room", "id": room["id"], "name": "Loft 2"})
		require.Equal(t, int64(40), num(t, kept, "capacity"))
		cleared := b.saveItem(b.acme, id, map[string]any{"kind": "room", "id": room["id"], "name": "Loft 2", "capacity": nil})
		require.Nil(t, cleared["capacity"])
	})

	t.Run("NotFound", func(t *testing.T) {
		track := b.saveItem(b.acme, id, map[string]any{"kind": "track", "name": "Mobile"})
		for kind, label := range map[string]string{"format": "Format", "room": "Room", "tag": "Tag", "level": "Level"} {
			// A track's id is no format, room, tag or level.
			r := b.do(http.MethodPost, path, b.acme, map[string]any{"kind": kind, "id": track["id"], "name": "x"})
			b.requireError(r, http.StatusNotFound, "not_found")
			require.Equal(t, label+" not found", r.ErrMessage())
		}
		other := b.createEvent(b.acme, "Other")
		r := b.do(http.MethodPost, "/api/v1/events/"+str(other, "id")+"/library", b.acme,
			map[string]any{"kind": "track", "id": track["id"], "name": "x"})
		b.requireError(r, http.StatusNotFound, "not_found")
		require.Equal(t, "Track not found", r.ErrMessage())
	})

	t.Run("Validation", func(t *testing.T) {
		for body, want := range map[string][2]string{
			`{"kind":"tag","id":null,"name":"   "}`:                             {"invalid_input", "Enter a name"},
			`{"kind":"track","id":null,"name":"x","color":"  "}`:                {"invalid_input", "Colour must not be empty"},
			`{"kind":"format","id":null,"name":"x","durationMinutes":0}`:        {"invalid_input", "durationMinutes must be between 1 and 1440"},
			`{"kind":"room","id":null,"name":"x","capacity":-1}`:                {"invalid_input", "capacity must be between 1 and 1000000"},
			`{"kind":"tag","id":null,"name":"` + string(make([]byte, 0)) + `"}`: {"invalid_input", "Enter a name"},
		} {
			r := b.do(http.MethodPost, path, b.acme, body)
			b.requireError(r, http.StatusBadRequest, want[0])
			require.Equal(t, want[1], r.ErrMessage(), body)
		}
	})

	t.Run("Delete", func(t *testing.T) {
		tag := b.saveItem(b.acme, id, map[string]any{"kind": "tag", "name": "Temporary"})
		r := b.do(http.MethodDelete, path+"/tag/"+str(tag, "id"), b.acme, nil)
		require.Equal(t, http.StatusNoContent, r.Status)
		for _, t2 := range b.must(http.StatusOK, http.MethodGet, path, b.acme, nil).Obj()["tags"].([]any) {
			require.NotEqual(t, tag["id"], t2.(map[string]any)["id"])
		}
		r = b.do(http.MethodDelete, path+"/tag/"+str(tag, "id"), b.acme, nil)
		b.requireError(r, http.StatusNotFound, "not_found")
		require.Equal(t, "Tag not found", r.ErrMessage())

		r = b.do(http.MethodDelete, path+"/stage/"+str(tag, "id"), b.acme, nil)
		b.requireError(r, http.StatusBadRequest, "invalid_input")
		require.Equal(t, "kind must be one of track, format, room, tag, level", r.ErrMessage())
	})

	t.Run("InUse", func(t *testing.T) {
		ctx := b.sys()
		sub := b.newSubmission(id, 1)
		track := b.saveItem(b.acme, id, map[string]any{"kind": "track", "name": "Used track"})
		format := b.saveItem(b.acme, id, map[string]any{"kind": "format", "name": "Used format"})
		room := b.saveItem(b.acme, id, map[string]any{"kind": "room", "name": "Used room"})
		tag := b.saveItem(b.acme, id, map[string]any{"kind": "tag", "name": "Used tag"})
		level := b.saveItem(b.acme, id, map[string]any{"kind": "level", "name": "Used level"})
		_, err := sub.Update().AddTrackIDs(str(track, "id")).AddTagIDs(str(tag, "id")).
			SetFormatID(str(format, "id")).SetRoomID(str(room, "id")).SetLevelID(str(level, "id")).Save(ctx)
		require.NoError(t, err)

		for kind, item := range map[string]map[string]any{"track": track, "format": format, "room": room, "tag": tag, "level": level} {
			r := b.do(http.MethodDelete, path+"/"+kind+"/"+str(item, "id"), b.acme, nil)
			b.requireError(r, http.StatusConflict, "resource_in_use")
			label := map[string]string{"track": "Track", "format": "Format", "room": "Room", "tag": "Tag", "level": "Level"}[kind]
			require.Equal(t, label+" cannot be deleted because it is in use", r.ErrMessage())
		}
		// Once nothing uses them they go.
		require.NoError(t, b.db.Ent.Submission.DeleteOne(sub).Exec(ctx))
		for kind, item := range map[string]map[string]any{"track": track, "format": format, "room": room, "tag": tag, "level": level} {
			b.must(http.StatusNoContent, http.MethodDelete, path+"/"+kind+"/"+str(item, "id"), b.acme, nil)
		}
	})

	t.Run("Admins", func(t *testing.T) {
		ctx := b.sys()
		owner, err := b.db.Ent.User.Create().SetEmail("owner@acme.test").SetName("Olga Owner").Save(ctx)
		require.NoError(t, err)
		member, err := b.db.Ent.User.Create().SetEmail("member@acme.test").SetName("Mo Member").Save(ctx)
		require.NoError(t, err)
		eventAdmin, err := b.db.Ent.User.Create().SetEmail("ea@acme.test").SetName("Eve Admin").Save(ctx)
		require.NoError(t, err)
		reviewer, err := b.db.Ent.User.Create().SetEmail("rev@acme.test").SetName("Rex Reviewer").Save(ctx)
		require.NoError(t, err)
		for u, role := range map[string]string{owner.ID: "owner", member.ID: "member"} {
			_, err := b.db.Ent.OrganizationMember.Create().SetOrganizationID(b.acmeOrg).SetUserID(u).SetRole(organizationmember.Role(role)).Save(ctx)
			require.NoError(t, err)
		}
		for u, role := range map[string]string{eventAdmin.ID: "admin", reviewer.ID: "reviewer", owner.ID: "admin"} {
			_, err := b.db.Ent.EventMember.Create().SetOrganizationID(b.acmeOrg).SetEventID(id).SetUserID(u).SetRole(eventmember.Role(role)).Save(ctx)
			require.NoError(t, err)
		}
		admins := b.must(http.StatusOK, http.MethodGet, path, b.acme, nil).Obj()["admins"].([]any)
		require.Equal(t, []any{
			map[string]any{"id": owner.ID, "name": "Olga Owner", "email": "owner@acme.test"},
			map[string]any{"id": eventAdmin.ID, "name": "Eve Admin", "email": "ea@acme.test"},
		}, admins)
	})

	t.Run("OtherOrganization", func(t *testing.T) {
		b.requireError(b.do(http.MethodGet, path, b.globex, nil), http.StatusForbidden, "forbidden")
		b.requireError(b.do(http.MethodPost, path, b.globex, map[string]any{"kind": "tag", "id": nil, "name": "x"}),
			http.StatusForbidden, "forbidden")
	})
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sortStrings(out)
	return out
}
