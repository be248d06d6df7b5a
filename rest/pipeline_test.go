package rest_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/organizationmember"
	"github.com/podium/podium/ent/stagehistory"
)

// bookContact stores a contact of org's book directly (the contact operations are another
// area's); company and title may be empty for none.
func (b *testBundle) bookContact(org, first, last, email, company, title string) string {
	b.t.Helper()
	c := b.db.Ent.OrganizationContact.Create().SetOrganizationID(org).SetFirstName(first).SetLastName(last).SetEmail(email)
	if company != "" {
		c.SetCompany(company)
	}
	if title != "" {
		c.SetTitle(title)
	}
	row, err := c.Save(b.sys())
	require.NoError(b.t, err)
	return row.ID
}

// bookTag stores a tag of org's book and puts it on contacts.
func (b *testBundle) bookTag(org, name string, contacts ...string) string {
	b.t.Helper()
	tag, err := b.db.Ent.OrganizationTag.Create().SetOrganizationID(org).SetName(name).Save(b.sys())
	require.NoError(b.t, err)
	for _, c := range contacts {
		_, err := b.db.Ent.OrganizationContactTag.Create().SetOrganizationID(org).SetOrganizationContactID(c).
			SetTagID(tag.ID).Save(b.sys())
		require.NoError(b.t, err)
	}
	return tag.ID
}

func stageBody(id any, name, status string, position any) map[string]any {
	return map[string]any{"id": id, "name": name, "semanticStatus": status, "position": position}
}

// saveStage creates a stage with key and returns its id.
func (b *testBundle) saveStage(key, name string, position int) string {
	b.t.Helper()
	return str(b.must(http.StatusOK, http.MethodPost, "/api/v1/pipeline/stages", key, stageBody(nil, name, "open", position)).Obj(), "id")
}

// placeCard places contact in stage with key and returns the card.
func (b *testBundle) placeCard(key, contact, stage string, note any) map[string]any {
	b.t.Helper()
	return b.must(http.StatusCreated, http.MethodPost, "/api/v1/pipeline/cards", key,
		map[string]any{"organizationContactId": contact, "stageId": stage, "note": note}).Obj()
}

// stageHistory is the stage history of a card, oldest first, as stored.
func (b *testBundle) stageHistory(cardID string) []map[string]any {
	b.t.Helper()
	rows, err := b.db.Ent.StageHistory.Query().Where(stagehistory.CardID(cardID)).
		Order(stagehistory.ByCreatedAt(), stagehistory.ByID()).All(b.sys())
	require.NoError(b.t, err)
	out := make([]map[string]any, len(rows))
	for i, h := range rows {
		out[i] = map[string]any{"from": h.FromStageID, "fromName": h.FromStageName, "to": h.ToStageID, "toName": h.ToStageName,
			"user": h.ActorUserID, "key": h.ActorAPIKeyID, "actor": h.ActorName}
	}
	return out
}

// pipelineFixture adds a stage with a card, a second stage and a segment to the shared fixture
// of the malformed-body, hostile-value, isolation and authorization suites.
func (b *testBundle) pipelineFixture(f fixture) {
	b.t.Helper()
	contact := b.bookContact(b.acmeOrg, "Pipeline", "Fixture", "pipeline-fixture@example.test", "Fixture Labs", "")
	stage, next := b.saveStage(b.acme, "Prospect", 1), b.saveStage(b.acme, "Contacted", 2)
	card := str(b.placeCard(b.acme, contact, stage, "Met at the fixture"), "id")
	segment := str(b.must(http.StatusCreated, http.MethodPost, "/api/v1/segments", b.acme,
		map[string]any{"name": "Fixture segment", "filter": map[string]any{"search": "fixture"}}).Obj(), "id")
	for k, v := range map[string]string{"stageId": stage, "cardId": card, "segmentId": segment,
		"cardContactId": contact, "nextStageId": next} {
		f.ids[k] = v
	}
	for k, v := range map[string]map[string]any{
		"savePipelineStage":     stageBody(stage, "Prospect", "open", 1),
		"reorderPipelineStages": {"stageIds": []any{stage, next}},
		"addPipelineCard":       {"organizationContactId": contact, "stageId": stage, "note": "n"},
		"movePipelineCard":      {"toStageId": next},
		"saveSegment":           {"name": "Fixture segment", "filter": map[string]any{"search": "fixture", "tagIds": []any{"otag_x"}}},
	} {
		f.bodies[k] = v
	}
}

func TestPipelineStages(t *testing.T) {
	t.Parallel()
	b := setup(t)
	require.Equal(t, map[string]any{"columns": []any{}}, b.must(http.StatusOK, http.MethodGet, "/api/v1/pipeline", b.acme, nil).JSON)

	created := b.must(http.StatusOK, http.MethodPost, "/api/v1/pipeline/stages", b.acme, stageBody(nil, "  Prospect ", "open", 3)).Obj()
	id := str(created, "id")
	require.Equal(t, "Prospect", created["name"])
	require.Equal(t, "open", created["semanticStatus"])
	require.Equal(t, int64(3), num(t, created, "position"))
	require.Equal(t, b.acmeOrg, created["organizationId"])
	require.Regexp(t, `^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`, created["createdAt"])

	updated := b.must(http.StatusOK, http.MethodPost, "/api/v1/pipeline/stages", b.acme, stageBody(id, "Won", "won", -2)).Obj()
	require.Equal(t, id, updated["id"])
	require.Equal(t, "Won", updated["name"])
	require.Equal(t, "won", updated["semanticStatus"])
	require.Equal(t, int64(-2), num(t, updated, "position"))
	require.Equal(t, created["createdAt"], updated["createdAt"])

	b.saveStage(b.acme, "Lost", 1)
	b.saveStage(b.globex, "Won", 1) // names are unique per organization only

	for _, c := range []struct {
		name   string
		body   map[string]any
		status int
		code   string
	}{
		{"DuplicateName", stageBody(nil, "Won", "open", 1), http.StatusConflict, "conflict"},
		{"DuplicateNameOnUpdate", stageBody(id, "Lost", "open", 1), http.StatusConflict, "conflict"},
		{"UnknownID", stageBody("stage_01doesnotexist000000000", "X", "open", 1), http.StatusNotFound, "not_found"},
		{"BlankName", stageBody(nil, "  ", "open", 1), http.StatusBadRequest, "invalid_input"},
		{"LongName", stageBody(nil, string(make([]byte, 201)), "open", 1), http.StatusBadRequest, "invalid_input"},
		{"FractionalPosition", stageBody(nil, "X", "open", 1.5), http.StatusBadRequest, "invalid_body"},
		{"StringPosition", stageBody(nil, "X", "open", "1"), http.StatusBadRequest, "invalid_body"},
		{"UnknownStatus", stageBody(nil, "X", "pending", 1), http.StatusBadRequest, "invalid_body"},
		{"MissingID", map[string]any{"name": "X", "semanticStatus": "open", "position": 1}, http.StatusBadRequest, "invalid_body"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b.requireError(b.do(http.MethodPost, "/api/v1/pipeline/stages", b.acme, c.body), c.status, c.code)
		})
	}
	// Another organization's stage is not found, and stays as it was.
	b.requireError(b.do(http.MethodPost, "/api/v1/pipeline/stages", b.globex, stageBody(id, "Taken", "lost", 9)), http.StatusNotFound, "not_found")

	cols := b.must(http.StatusOK, http.MethodGet, "/api/v1/pipeline", b.acme, nil).Obj()["columns"].([]any)
	require.Len(t, cols, 2)
	require.Equal(t, "Won", cols[0].(map[string]any)["stage"].(map[string]any)["name"])
	require.Equal(t, "Lost", cols[1].(map[string]any)["stage"].(map[string]any)["name"])
	require.Equal(t, []any{}, cols[0].(map[string]any)["cards"])
}

func TestPipelineReorder(t *testing.T) {
	t.Parallel()
	b := setup(t)
	a, c := b.saveStage(b.acme, "A", 5), b.saveStage(b.acme, "C", 6)
	b.saveStage(b.acme, "D", 7)
	rival := b.saveStage(b.globex, "Rival", 4)
	r := b.must(http.StatusOK, http.MethodPut, "/api/v1/pipeline/stages/order", b.acme,
		map[string]any{"stageIds": []any{c, "stage_01doesnotexist000000000", a, rival, c}})
	require.Equal(t, map[string]any{"ok": true}, r.JSON)
	positions := func(key string) map[string]int64 {
		out := map[string]int64{}
		for _, col := range b.must(http.StatusOK, http.MethodGet, "/api/v1/pipeline", key, nil).Obj()["columns"].([]any) {
			st := col.(map[string]any)["stage"].(map[string]any)
			out[str(st, "name")] = num(t, st, "position")
		}
		return out
	}
	// c is listed twice: its last place wins; d, left out, keeps its position.
	require.Equal(t, map[string]int64{"A": 3, "C": 5, "D": 7}, positions(b.acme))
	require.Equal(t, map[string]int64{"Rival": 4}, positions(b.globex))
	b.must(http.StatusOK, http.MethodPut, "/api/v1/pipeline/stages/order", b.acme, map[string]any{"stageIds": []any{}})
	b.requireError(b.do(http.MethodPut, "/api/v1/pipeline/stages/order", b.acme, map[string]any{}), http.StatusBadRequest, "invalid_body")
	b.requireError(b.do(http.MethodPut, "/api/v1/pipeline/stages/order", b.acme, map[string]any{"stageIds": []any{1}}), http.StatusBadRequest, "invalid_body")
	// DELETE …/order names a stage whose id is "order".
	b.requireError(b.do(http.MethodDelete, "/api/v1/pipeline/stages/order", b.acme, nil), http.StatusNotFound, "not_found")
}

func TestPipelineCards(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ada := b.bookContact(b.acmeOrg, "Ada", "Lovelace", "ada@example.test", "", "")
	alan := b.bookContact(b.acmeOrg, "Alan", "Babbage", "alan@example.test", "", "")
	rival := b.bookContact(b.globexOrg, "Rita", "Rival", "rita@example.test", "", "")
	prospect, contacted := b.saveStage(b.acme, "Prospect", 1), b.saveStage(b.acme, "Contacted", 2)
	rivalStage := b.saveStage(b.globex, "Theirs", 1)
	var keyID string
	require.NoError(t, b.db.System.QueryRow(b.sys(), `SELECT id FROM api_keys WHERE organization_id = $1`, b.acmeOrg).Scan(&keyID))

	card := b.placeCard(b.acme, ada, prospect, "First call")
	id := str(card, "id")
	require.Equal(t, ada, card["organizationContactId"])
	require.Equal(t, prospect, card["stageId"])
	require.Equal(t, "First call", card["note"])
	require.Nil(t, card["ownerUserId"])
	require.Equal(t, []map[string]any{{"from": (*string)(nil), "fromName": (*string)(nil), "to": &prospect,
		"toName": "Prospect", "user": (*string)(nil), "key": &keyID, "actor": "API key: test"}}, b.stageHistory(id))

	t.Run("SameStageReplacesTheNoteWithoutHistory", func(t *testing.T) {
		again := b.placeCard(b.acme, ada, prospect, nil)
		require.Equal(t, id, again["id"])
		require.Nil(t, again["note"])
		require.Len(t, b.stageHistory(id), 1)
	})
	t.Run("AnotherStageMovesTheCard", func(t *testing.T) {
		moved := b.placeCard(b.acme, ada, contacted, "Second call")
		require.Equal(t, id, moved["id"])
		require.Equal(t, contacted, moved["stageId"])
		h := b.stageHistory(id)
		require.Len(t, h, 2)
		require.Equal(t, &prospect, h[1]["from"])
		require.Equal(t, "Prospect", *h[1]["fromName"].(*string))
		require.Equal(t, "Contacted", h[1]["toName"])
	})
	t.Run("Refusals", func(t *testing.T) {
		for _, c := range []struct {
			name string
			body map[string]any
		}{
			{"UnknownContact", map[string]any{"organizationContactId": "crm_01doesnotexist00000000000", "stageId": prospect, "note": nil}},
			{"OtherOrganizationsContact", map[string]any{"organizationContactId": rival, "stageId": prospect, "note": nil}},
			{"UnknownStage", map[string]any{"organizationContactId": alan, "stageId": "stage_01doesnotexist000000000", "note": nil}},
			{"OtherOrganizationsStage", map[string]any{"organizationContactId": alan, "stageId": rivalStage, "note": nil}},
		} {
			b.requireError(b.do(http.MethodPost, "/api/v1/pipeline/cards", b.acme, c.body), http.StatusNotFound, "not_found")
		}
		b.requireError(b.do(http.MethodPost, "/api/v1/pipeline/cards", b.acme,
			map[string]any{"organizationContactId": alan, "stageId": prospect}), http.StatusBadRequest, "invalid_body")
		n, err := b.db.Ent.PipelineCard.Query().Count(b.sys())
		require.NoError(t, err)
		require.Equal(t, 1, n)
	})

	t.Run("Move", func(t *testing.T) {
		c2 := str(b.placeCard(b.acme, alan, prospect, "Keep me"), "id")
		moved := b.must(http.StatusOK, http.MethodPost, "/api/v1/pipeline/cards/"+c2+"/move", b.acme, map[string]any{"toStageId": contacted}).Obj()
		require.Equal(t, contacted, moved["stageId"])
		require.Equal(t, "Keep me", moved["note"])
		h := b.stageHistory(c2)
		require.Len(t, h, 2)
		require.Equal(t, "Contacted", h[1]["toName"])
		require.Equal(t, &keyID, h[1]["key"])

		r := b.do(http.MethodPost, "/api/v1/pipeline/cards/"+c2+"/move", b.acme, map[string]any{"toStageId": contacted})
		b.requireError(r, http.StatusConflict, "invalid_pipeline_move")
		require.Equal(t, "Choose a different stage in this pipeline", r.ErrMessage())
		b.requireError(b.do(http.MethodPost, "/api/v1/pipeline/cards/"+c2+"/move", b.acme, map[string]any{"toStageId": rivalStage}), http.StatusNotFound, "not_found")
		b.requireError(b.do(http.MethodPost, "/api/v1/pipeline/cards/card_01doesnotexist0000000000/move", b.acme, map[string]any{"toStageId": prospect}), http.StatusNotFound, "not_found")
		b.requireError(b.do(http.MethodPost, "/api/v1/pipeline/cards/"+c2+"/move", b.globex, map[string]any{"toStageId": rivalStage}), http.StatusNotFound, "not_found")
		b.requireError(b.do(http.MethodPost, "/api/v1/pipeline/cards/"+c2+"/move", b.acme, map[string]any{}), http.StatusBadRequest, "invalid_body")
		require.Len(t, b.stageHistory(c2), 2)
	})

	t.Run("Board", func(t *testing.T) {
		cols := b.must(http.StatusOK, http.MethodGet, "/api/v1/pipeline", b.acme, nil).Obj()["columns"].([]any)
		require.Len(t, cols, 2)
		require.Equal(t, []any{}, cols[0].(map[string]any)["cards"])
		cards := cols[1].(map[string]any)["cards"].([]any)
		require.Len(t, cards, 2)
		// By the contact's last name: Babbage before Lovelace.
		first := cards[0].(map[string]any)
		require.Equal(t, "Babbage", first["contact"].(map[string]any)["lastName"])
		require.Equal(t, "alan@example.test", first["contact"].(map[string]any)["email"])
		require.Equal(t, map[string]any{}, first["contact"].(map[string]any)["custom"])
		require.Nil(t, first["contact"].(map[string]any)["company"])
		require.Equal(t, "Lovelace", cards[1].(map[string]any)["contact"].(map[string]any)["lastName"])
		require.Len(t, b.must(http.StatusOK, http.MethodGet, "/api/v1/pipeline", b.globex, nil).Obj()["columns"], 1)
	})
}

func TestPipelineDeleteStage(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ada := b.bookContact(b.acmeOrg, "Ada", "Lovelace", "ada@example.test", "", "")
	prospect, contacted := b.saveStage(b.acme, "Prospect", 1), b.saveStage(b.acme, "Contacted", 2)
	card := str(b.placeCard(b.acme, ada, prospect, nil), "id")

	r := b.do(http.MethodDelete, "/api/v1/pipeline/stages/"+prospect, b.acme, nil)
	b.requireError(r, http.StatusConflict, "resource_in_use")
	require.Equal(t, "Move this stage's contacts before deleting it", r.ErrMessage())
	b.requireError(b.do(http.MethodDelete, "/api/v1/pipeline/stages/"+prospect, b.globex, nil), http.StatusNotFound, "not_found")
	b.requireError(b.do(http.MethodDelete, "/api/v1/pipeline/stages/stage_01doesnotexist000000000", b.acme, nil), http.StatusNotFound, "not_found")

	// A stage the card has left can go, though the history names it (the original answered 500).
	b.must(http.StatusOK, http.MethodPost, "/api/v1/pipeline/cards/"+card+"/move", b.acme, map[string]any{"toStageId": contacted})
	r = b.must(http.StatusNoContent, http.MethodDelete, "/api/v1/pipeline/stages/"+prospect, b.acme, nil)
	require.Empty(t, r.Raw)
	h := b.stageHistory(card)
	require.Len(t, h, 2)
	require.Equal(t, "Prospect", h[0]["toName"])
	require.Equal(t, "Prospect", *h[1]["fromName"].(*string))
	b.requireError(b.do(http.MethodDelete, "/api/v1/pipeline/stages/"+prospect, b.acme, nil), http.StatusNotFound, "not_found")
}

// TestPipelineGraphQL runs the operations through GraphQL: the same rules, errors as
// extensions.code, and a signed-in admin recorded by user id and name.
func TestPipelineGraphQL(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ada := b.bookContact(b.acmeOrg, "Ada", "Lovelace", "ada@example.test", "Analytical Engines", "")
	save := `mutation($in: SavePipelineStageInput!) { savePipelineStage(input: $in) { id name semanticStatus position } }`
	st := b.gqlOK(b.acme, save, map[string]any{"in": stageBody(nil, "Prospect", "open", 1)})["savePipelineStage"].(map[string]any)
	next := b.gqlOK(b.acme, save, map[string]any{"in": stageBody(nil, "Won", "won", 2)})["savePipelineStage"].(map[string]any)
	r := b.gql(b.acme, save, map[string]any{"in": stageBody(nil, "Won", "won", 3)})
	require.Equal(t, []string{"conflict"}, r.Codes())

	add := `mutation($in: AddPipelineCardInput!) { addPipelineCard(input: $in) { id stageId note } }`
	card := b.gqlOK(b.acme, add, map[string]any{"in": map[string]any{"organizationContactId": ada, "stageId": st["id"], "note": "n"}})["addPipelineCard"].(map[string]any)
	move := `mutation($c: ID!, $to: ID!) { movePipelineCard(cardId: $c, input: {toStageId: $to}) { stageId } }`
	r = b.gql(b.acme, move, map[string]any{"c": card["id"], "to": st["id"]})
	require.Equal(t, []string{"invalid_pipeline_move"}, r.Codes())
	require.Equal(t, next["id"], b.gqlOK(b.acme, move, map[string]any{"c": card["id"], "to": next["id"]})["movePipelineCard"].(map[string]any)["stageId"])
	r = b.gql(b.acme, `mutation($s: ID!) { deletePipelineStage(stageId: $s) }`, map[string]any{"s": next["id"]})
	require.Equal(t, []string{"resource_in_use"}, r.Codes())
	require.Equal(t, true, b.gqlOK(b.acme, `mutation($ids: [ID!]!) { reorderPipelineStages(input: {stageIds: $ids}) }`,
		map[string]any{"ids": []any{next["id"], st["id"]}})["reorderPipelineStages"])

	board := b.gqlOK(b.acme, `{ pipeline { columns { stage { name position } cards { card { note } contact { lastName company } } } } }`, nil)
	cols := board["pipeline"].(map[string]any)["columns"].([]any)
	require.Equal(t, "Won", cols[0].(map[string]any)["stage"].(map[string]any)["name"])
	require.Equal(t, []any{map[string]any{"card": map[string]any{"note": "n"},
		"contact": map[string]any{"lastName": "Lovelace", "company": "Analytical Engines"}}}, cols[0].(map[string]any)["cards"])

	// A signed-in admin is recorded by user id and name.
	b.createEvent(b.acme, "Sign-in emails are logged under an event")
	userID := b.addMember(b.acmeOrg, "admin@example.test", organizationmember.RoleAdmin)
	cookie := b.signIn("admin@example.test")
	vars, err := json.Marshal(map[string]any{"c": card["id"], "to": st["id"]})
	require.NoError(t, err)
	req := httptest.NewRequest(http.MethodPost, "/graphql", bytes.NewReader(graphQLBody(move, string(vars))))
	req.Header.Set("Content-Type", "application/json")
	req.AddCookie(&http.Cookie{Name: sessionCookie, Value: cookie})
	res := b.send(req)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	require.NotContains(t, res.Raw, `"errors"`)
	h := b.stageHistory(str(card, "id"))
	require.Len(t, h, 3)
	require.Nil(t, h[2]["key"])
	require.Equal(t, &userID, h[2]["user"])
	require.Equal(t, "Member admin@example.test", h[2]["actor"])
}

// TestPipelineQueryCount proves the board costs the same statements for 1 card as for 200.
func TestPipelineQueryCount(t *testing.T) {
	t.Parallel()
	b := setup(t)
	stages := []string{b.saveStage(b.acme, "One", 1), b.saveStage(b.acme, "Two", 2)}
	count := func() int64 {
		rec := b.sendRaw(b.request(http.MethodGet, "/api/v1/pipeline", "Bearer "+b.acme))
		require.Equal(t, http.StatusOK, rec.Code)
		return statements(t, rec)
	}
	b.placeCard(b.acme, b.bookContact(b.acmeOrg, "C", "0", "c0@example.test", "", ""), stages[0], nil)
	one := count()
	for i := 1; i < 200; i++ {
		b.placeCard(b.acme, b.bookContact(b.acmeOrg, "C", itoa(i), "c"+itoa(i)+"@example.test", "", ""), stages[i%2], nil)
	}
	many := count()
	require.Equal(t, one, many)
	require.LessOrEqual(t, many, int64(5))
	cols := b.must(http.StatusOK, http.MethodGet, "/api/v1/pipeline", b.acme, nil).Obj()["columns"].([]any)
	require.Len(t, cols[0].(map[string]any)["cards"], 100)
	require.Len(t, cols[1].(map[string]any)["cards"], 100)
}

// TestPipelineConcurrentCards places one contact's card from many requests at once: one card,
// one history row per stage it entered, and no request fails with a 5xx.
func TestPipelineConcurrentCards(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ada := b.bookContact(b.acmeOrg, "Ada", "Lovelace", "ada@example.test", "", "")
	stage := b.saveStage(b.acme, "Prospect", 1)
	var wg sync.WaitGroup
	statuses := make([]int, 8)
	for i := range statuses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = b.do(http.MethodPost, "/api/v1/pipeline/cards", b.acme,
				map[string]any{"organizationContactId": ada, "stageId": stage, "note": "n" + itoa(i)}).Status
		}()
	}
	wg.Wait()
	for _, s := range statuses {
		require.Contains(t, []int{http.StatusCreated, http.StatusConflict}, s)
	}
	require.Contains(t, statuses, http.StatusCreated)
	cards, err := b.db.Ent.PipelineCard.Query().All(b.sys())
	require.NoError(t, err)
	require.Len(t, cards, 1)
	require.Len(t, b.stageHistory(cards[0].ID), 1)
}

// TestPipelineHistoryReadsBack reads the history the pipeline writes through getContact: stage
// names and the actor's name as they were, after the stage is renamed.
func TestPipelineHistoryReadsBack(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ada := b.bookContact(b.acmeOrg, "Ada", "Lovelace", "ada@example.test", "", "")
	prospect, contacted := b.saveStage(b.acme, "Prospect", 1), b.saveStage(b.acme, "Contacted", 2)
	card := str(b.placeCard(b.acme, ada, prospect, "n"), "id")
	b.must(http.StatusOK, http.MethodPost, "/api/v1/pipeline/cards/"+card+"/move", b.acme, map[string]any{"toStageId": contacted})
	b.must(http.StatusOK, http.MethodPost, "/api/v1/pipeline/stages", b.acme, stageBody(prospect, "Renamed", "open", 1))

	detail := b.must(http.StatusOK, http.MethodGet, "/api/v1/contacts/"+ada, b.acme, nil).Obj()
	require.Equal(t, contacted, detail["card"].(map[string]any)["stageId"])
	var moves []string
	for _, h := range detail["stageHistory"].([]any) {
		e := h.(map[string]any)
		require.Equal(t, "API key: test", e["actorName"])
		from, _ := e["fromStageName"].(string)
		moves = append(moves, from+"→"+str(e, "toStageName"))
	}
	require.ElementsMatch(t, []string{"→Prospect", "Prospect→Contacted"}, moves)
}
