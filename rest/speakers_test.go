package rest_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestSpeakers(t *testing.T) {
	t.Parallel()
	b := setupMail(t)
	w := b.world()

	t.Run("SaveCreatesAndUpdates", func(t *testing.T) {
		body := speakerBody("  Marie@Example.TEST ")
		body["firstName"], body["lastName"], body["company"], body["tshirtSize"] = " Marie ", "Curie", "Sorbonne", "M"
		body["travelLogistics"], body["dietaryRequirements"] = "Arrives Monday", "vegan"
		c := b.must(http.StatusCreated, http.MethodPost, w.base+"/speakers", b.acme, body).Obj()
		require.Equal(t, "marie@example.test", c["email"])
		require.Equal(t, "Marie", c["firstName"])
		require.Equal(t, "Sorbonne", c["company"])
		require.Equal(t, "M", c["tshirtSize"])
		require.Equal(t, "vegan", c["dietaryRequirements"])
		require.Equal(t, "speaker", c["participation"])
		require.Equal(t, "invited", c["workflowStatus"])
		require.Equal(t, "approved", c["profileReviewStatus"])
		require.Equal(t, map[string]any{"travelLogistics": "Arrives Monday"}, c["custom"])
		require.Equal(t, map[string]any{}, c["approvedProfile"])
		require.Nil(t, c["confirmedAt"])
		for _, key := range []string{"salutation", "honorific", "pronouns", "gender", "headshotUrl", "headshotKey", "phone", "facebookUrl"} {
			require.Contains(t, c, key)
		}

		body["id"], body["company"], body["travelLogistics"] = c["id"], nil, nil
		u := b.must(http.StatusCreated, http.MethodPost, w.base+"/speakers", b.acme, body).Obj()
		require.Equal(t, c["id"], u["id"])
		require.Nil(t, u["company"])
		require.Equal(t, map[string]any{}, u["custom"])

		got := b.must(http.StatusOK, http.MethodGet, w.base+"/speakers/"+str(c, "id"), b.acme, nil).Obj()
		require.Equal(t, u["updatedAt"], got["updatedAt"])
		r := b.do(http.MethodGet, w.base+"/speakers/ctc_01doesnotexist0000000000", b.acme, nil)
		b.requireError(r, http.StatusNotFound, "not_found")
		require.Equal(t, "Speaker not found", r.ErrMessage())
	})

	t.Run("SaveChecks", func(t *testing.T) {
		for name, tc := range map[string]struct {
			change  func(map[string]any)
			code    string
			message string
		}{
			"DuplicateEmail": {func(m map[string]any) { m["email"] = "ADA@example.test" }, "invalid_input", "A speaker with this email already exists"},
			"BadEmail":       {func(m map[string]any) { m["email"] = "not an email" }, "invalid_input", "Enter a valid email"},
			"BlankName":      {func(m map[string]any) { m["lastName"] = " " }, "invalid_input", "Enter the speaker's first and last name"},
			"BadDiet":        {func(m map[string]any) { m["dietaryRequirements"] = "carnivore" }, "invalid_body", "dietaryRequirements must be one of none, vegetarian, vegan, gluten_free, other"},
			"MissingKey":     {func(m map[string]any) { delete(m, "bio") }, "invalid_body", "bio is required"},
			"UnknownID":      {func(m map[string]any) { m["id"] = "ctc_01doesnotexist0000000000" }, "not_found", "Speaker not found"},
		} {
			body := speakerBody("new@example.test")
			tc.change(body)
			r := b.do(http.MethodPost, w.base+"/speakers", b.acme, body)
			require.Equal(t, tc.code, r.ErrCode(), name)
			require.Equal(t, tc.message, r.ErrMessage(), name)
		}
	})

	t.Run("WorkflowStampsConfirmedAtOnce", func(t *testing.T) {
		path := w.base + "/speakers/" + w.alan + "/workflow"
		c := b.must(http.StatusOK, http.MethodPatch, path, b.acme, map[string]any{"status": "onboarding"}).Obj()
		require.Nil(t, c["confirmedAt"])
		c = b.must(http.StatusOK, http.MethodPatch, path, b.acme, map[string]any{"status": "confirmed"}).Obj()
		stamp := c["confirmedAt"]
		require.Regexp(t, isoMillis, stamp)
		time.Sleep(5 * time.Millisecond)
		c = b.must(http.StatusOK, http.MethodPatch, path, b.acme, map[string]any{"status": "ready"}).Obj()
		require.Equal(t, stamp, c["confirmedAt"], "never stamped twice")
		c = b.must(http.StatusOK, http.MethodPatch, path, b.acme, map[string]any{"status": "declined"}).Obj()
		require.Equal(t, "declined", c["workflowStatus"])
		require.Equal(t, stamp, c["confirmedAt"], "never cleared")
		b.requireError(b.do(http.MethodPatch, path, b.acme, map[string]any{"status": "gone"}), http.StatusBadRequest, "invalid_body")
		b.requireError(b.do(http.MethodPatch, w.base+"/speakers/"+w.outsider+"/workflow", b.acme, map[string]any{"status": "ready"}),
			http.StatusNotFound, "not_found")
	})

	t.Run("InviteIsIdempotent", func(t *testing.T) {
		path := w.base + "/speakers/invite"
		res := b.must(http.StatusOK, http.MethodPost, path, b.acme, map[string]any{"contactIds": []any{w.grace, w.ada, w.outsider}}).Obj()
		require.Equal(t, int64(2), num(t, res, "sent"))
		inv := res["invitations"].([]any)
		require.Len(t, inv, 2, "the other event's contact is left out")
		require.Equal(t, "Grace Hopper", inv[0].(map[string]any)["contactName"], "by last name: Hopper before Lovelace")
		require.Equal(t, "/portal", inv[0].(map[string]any)["portalPath"])
		require.Equal(t, false, inv[0].(map[string]any)["alreadyInvited"])
		require.NotNil(t, inv[0].(map[string]any)["logId"])
		msgs := b.sink.Wait(t, 2, 10*time.Second)
		require.Equal(t, "Your speaker portal for World", msgs[0].Header.Get("Subject"))
		require.Contains(t, msgs[0].Text, "https://podium.example.test/auth/link?token=")
		require.Contains(t, msgs[0].Text, "&next=%2Fportal", "a one-click sign-in link to the portal")

		again := b.must(http.StatusOK, http.MethodPost, path, b.acme, map[string]any{"contactIds": []any{w.ada, w.alan}}).Obj()
		require.Equal(t, int64(1), num(t, again, "sent"))
		for _, i := range again["invitations"].([]any) {
			m := i.(map[string]any)
			if m["contactId"] == w.ada {
				require.Equal(t, true, m["alreadyInvited"])
				require.Nil(t, m["logId"])
			} else {
				require.Equal(t, false, m["alreadyInvited"])
			}
		}
		b.sink.Wait(t, 3, 10*time.Second)
		time.Sleep(300 * time.Millisecond)
		require.Len(t, b.sink.Messages(), 3)
		r := b.do(http.MethodPost, path, b.acme, map[string]any{"contactIds": []any{}})
		b.requireError(r, http.StatusBadRequest, "invalid_input")
		require.Equal(t, "Choose at least one speaker", r.ErrMessage())
	})

	t.Run("Import", func(t *testing.T) {
		row := func(email, first, action string) map[string]any {
			return map[string]any{"firstName": first, "lastName": "Imported", "email": email, "title": "Engineer",
				"company": nil, "bio": "", "dietary": "Gluten-Free", "tshirt": "xl", "linkedin": nil, "twitter": nil,
				"facebook": nil, "website": nil, "phone": nil, "action": action}
		}
		res := b.must(http.StatusOK, http.MethodPost, w.base+"/speakers/import", b.acme, map[string]any{"rows": []any{
			row("new1@example.test", "New", "create"),
			row("ada@example.test", "Ada", "create"),      // exists: skipped
			row("grace@example.test", "Gracie", "update"), // updated
			row("nobody@example.test", "No", "update"),    // unknown: skipped
			row("skip@example.test", "Skip", "skip"),
		}}).Obj()
		require.Equal(t, map[string]any{"created": jsonNum(1), "updated": jsonNum(1), "skipped": jsonNum(3)}, res)
		dir := b.must(http.StatusOK, http.MethodGet, w.base+"/speakers", b.acme, nil).Obj()
		var imported map[string]any
		for _, r := range dir["rows"].([]any) {
			c := r.(map[string]any)["contact"].(map[string]any)
			if c["email"] == "new1@example.test" {
				imported = c
			}
			if c["email"] == "grace@example.test" {
				require.Equal(t, "Gracie", c["firstName"])
			}
		}
		require.Equal(t, "gluten_free", imported["dietaryRequirements"])
		require.Equal(t, "XL", imported["tshirtSize"])
		require.Nil(t, imported["bio"], "a blank cell stays empty")
		r := b.do(http.MethodPost, w.base+"/speakers/import", b.acme, map[string]any{"rows": []any{row("bad", "X", "create")}})
		b.requireError(r, http.StatusBadRequest, "invalid_input")
	})

	t.Run("Directory", func(t *testing.T) {
		s := b.createSession(w, "Directory talk", w.ada)
		_ = s
		dir := b.must(http.StatusOK, http.MethodGet, w.base+"/speakers", b.acme, nil).Obj()
		rows := dir["rows"].([]any)
		var ada map[string]any
		for _, r := range rows {
			if r.(map[string]any)["contact"].(map[string]any)["id"] == w.ada {
				ada = r.(map[string]any)
			}
		}
		require.NotNil(t, ada)
		require.Len(t, ada["sessions"], 1)
		require.Equal(t, "Directory talk", ada["sessions"].([]any)[0].(map[string]any)["title"])
		require.NotEmpty(t, ada["emails"], "the portal invitation")
		require.Equal(t, []any{}, ada["profileChanges"])
		csv := dir["csv"].(string)
		require.True(t, strings.HasPrefix(csv, "first_name,last_name,email,"))
		require.Contains(t, csv, "ada@example.test")
		require.Len(t, strings.Split(csv, "\r\n"), len(rows)+1)
	})
}

func jsonNum(n int) any { return jsonNumber(itoa(n)) }
