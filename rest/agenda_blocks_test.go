package rest_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/require"
)

// The original product's response schemas at its HEAD (d4mr/opensesh b3f7d2f,
// apps/docs/openapi.json), kept in testdata/original by operation id: integrators of the original
// read Podium's answers of these operations with them. The file is every 2xx JSON response schema
// of that document with its $refs resolved, written by testdata/original/extract.py (its header
// says how to run it); checkResponse holds every 2026-08-21 answer of the suite to it.
var (
	originalOnce    sync.Once
	originalSchemas map[string]*openapi3.Schema
	originalErr     error
)

// originalSchema is the original's current response schema of the operation op, if it has one.
func originalSchema(t *testing.T, op string) (*openapi3.Schema, bool) {
	t.Helper()
	originalOnce.Do(func() {
		raw, err := os.ReadFile(filepath.Join("testdata", "original", "b3f7d2f-responses.json"))
		if err != nil {
			originalErr = err
			return
		}
		originalErr = json.Unmarshal(raw, &originalSchemas)
	})
	require.NoError(t, originalErr)
	schema, ok := originalSchemas[op]
	return schema, ok
}

// originalShapeErr checks a JSON body against one of the original's schemas.
func originalShapeErr(schema *openapi3.Schema, raw []byte) error {
	var body any
	if err := json.Unmarshal(raw, &body); err != nil {
		return err
	}
	return schema.VisitJSON(body, openapi3.VisitAsResponse(), openapi3.MultiErrors())
}

// requireOriginalShape checks the body of r against the original's HEAD response schema of the
// operation op: every key it requires, no key it does not know, and the types and enums it says.
func requireOriginalShape(t *testing.T, op string, r response) {
	t.Helper()
	schema, ok := originalSchema(t, op)
	require.True(t, ok, "no original schema for %s", op)
	require.NoError(t, originalShapeErr(schema, []byte(r.Raw)),
		"%s answered what the original's clients cannot read:\n%.2000s", op, r.Raw)
}

// TestOriginalShapesRefuse proves the check can fail: a key the original does not know, a missing
// one, a kind outside its enum and a null where it wants a string are each refused.
func TestOriginalShapesRefuse(t *testing.T) {
	t.Parallel()
	b := setup(t)
	w := b.world()
	r := b.must(http.StatusOK, http.MethodPut, w.base+"/agenda/blocks", b.acme,
		blockBody(nil, "Lunch", "meal", nil, "2027-09-10T10:00:00Z", "2027-09-10T11:00:00Z"))
	requireOriginalShape(t, "saveAgendaBlock", r)
	for name, spoil := range map[string]func(m map[string]any){
		"UnknownKey": func(m map[string]any) { m["conflicts"] = []any{} },
		"MissingKey": func(m map[string]any) { delete(m, "aiConfigured") },
		"BadKind":    func(m map[string]any) { objects(m["blocks"])[0]["kind"] = "keynote" },
		"NullStart":  func(m map[string]any) { objects(m["blocks"])[0]["startsAt"] = nil },
	} {
		t.Run(name, func(t *testing.T) {
			var m map[string]any
			require.NoError(t, json.Unmarshal([]byte(r.Raw), &m))
			spoil(m)
			var body any
			raw, err := json.Marshal(m)
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(raw, &body))
			require.Error(t, originalSchemas["saveAgendaBlock"].VisitJSON(body, openapi3.VisitAsResponse()))
		})
	}
}

func blockBody(id any, title, kind string, room any, starts, ends any) map[string]any {
	return map[string]any{"id": id, "title": title, "kind": kind, "roomId": room, "startsAt": starts, "endsAt": ends}
}

func (b *testBundle) saveBlock(w world, body map[string]any) response {
	b.t.Helper()
	return b.do(http.MethodPut, w.base+"/agenda/blocks", b.acme, body)
}

// blockIDs are the ids of an agenda's (or a published list's) blocks, in order.
func blockIDs(blocks any) []string {
	out := []string{}
	for _, bl := range objects(blocks) {
		out = append(out, str(bl, "id"))
	}
	return out
}

func TestAgendaBlocks(t *testing.T) {
	t.Parallel()
	b := setup(t)
	st := b.stage()
	w := st.w

	r := b.saveBlock(w, blockBody(nil, "Lunch", "meal", nil, "2027-09-10T10:00:00Z", "2027-09-10T11:00:00Z"))
	require.Equal(t, http.StatusOK, r.Status, r.Raw)
	requireOriginalShape(t, "saveAgendaBlock", r)
	agenda := r.Obj()
	require.Equal(t, false, agenda["aiConfigured"], "the test server has no AI provider")
	require.Equal(t, true, agenda["event"].(map[string]any)["agendaDirty"])
	lunch := str(objects(agenda["blocks"])[0], "id")
	require.Regexp(t, `^blk_`, lunch)
	require.Equal(t, []any{map[string]any{"id": lunch, "title": "Lunch", "kind": "meal", "roomId": nil,
		"startsAt": "2027-09-10T10:00:00.000Z", "endsAt": "2027-09-10T11:00:00.000Z"}}, agenda["blocks"])

	registration := str(objects(b.saveBlock(w, blockBody(nil, "Registration", "registration", nil,
		"2027-09-10T07:00:00Z", "2027-09-10T08:00:00Z")).Obj()["blocks"])[0], "id")
	agenda = b.saveBlock(w, blockBody(nil, "Coffee", "break", st.hall, "2027-09-11T08:30:00Z", "2027-09-11T08:45:00Z")).Obj()
	require.Len(t, agenda["blocks"], 3)
	coffee := blockIDs(agenda["blocks"])[2]
	require.Equal(t, []string{registration, lunch, coffee}, blockIDs(agenda["blocks"]), "by start time")

	// An edit keeps the id; the title is trimmed; the room may change.
	agenda = b.saveBlock(w, blockBody(lunch, "  Long lunch ", "meal", st.annex, "2027-09-10T10:30:00Z", "2027-09-10T11:30:00Z")).Obj()
	require.Equal(t, []string{registration, lunch, coffee}, blockIDs(agenda["blocks"]))
	require.Equal(t, map[string]any{"id": lunch, "title": "Long lunch", "kind": "meal", "roomId": st.annex,
		"startsAt": "2027-09-10T10:30:00.000Z", "endsAt": "2027-09-10T11:30:00.000Z"}, objects(agenda["blocks"])[1])
	require.Equal(t, agenda["blocks"], b.must(http.StatusOK, http.MethodGet, w.base+"/agenda", b.acme, nil).Obj()["blocks"])

	// Each write recorded an AGENDA_CHANGED with its block.
	changed := []string{}
	for _, c := range b.changesOf(w.event, "agenda.changed") {
		changed = append(changed, c.Data["blockId"])
	}
	require.Equal(t, []string{lunch, registration, coffee, lunch}, changed)

	// Publishing copies them with their rooms' names, by start time.
	b.must(http.StatusOK, http.MethodPost, w.base+"/agenda/publish", b.acme, nil)
	published := []any{
		map[string]any{"id": registration, "title": "Registration", "kind": "registration", "roomName": nil,
			"startsAt": "2027-09-10T07:00:00.000Z", "endsAt": "2027-09-10T08:00:00.000Z"},
		map[string]any{"id": lunch, "title": "Long lunch", "kind": "meal", "roomName": "Annex",
			"startsAt": "2027-09-10T10:30:00.000Z", "endsAt": "2027-09-10T11:30:00.000Z"},
		map[string]any{"id": coffee, "title": "Coffee", "kind": "break", "roomName": "Hall",
			"startsAt": "2027-09-11T08:30:00.000Z", "endsAt": "2027-09-11T08:45:00.000Z"},
	}
	require.Equal(t, published, b.must(http.StatusOK, http.MethodGet, w.base, b.acme, nil).Obj()["publishedBlocks"])
	require.Equal(t, published, b.must(http.StatusOK, http.MethodGet, "/api/v1/public/events/"+w.event+"/agenda.json", "", nil).Obj()["blocks"])
	require.Equal(t, published, b.must(http.StatusOK, http.MethodGet, w.base+"/program", b.acme, nil).Obj()["blocks"])
	data := b.gqlOK(b.acme, `query($id: ID!) { event(id: $id) { publishedBlocks { id } } program(eventId: $id) { blocks { id roomName } } }`,
		map[string]any{"id": w.event})
	require.Equal(t, []string{registration, lunch, coffee}, blockIDs(data["event"].(map[string]any)["publishedBlocks"]))
	require.Equal(t, "Hall", objects(data["program"].(map[string]any)["blocks"])[2]["roomName"])

	// Deleting changes the agenda, not the published copy, until the next publish.
	r = b.do(http.MethodDelete, w.base+"/agenda/blocks/"+coffee, b.acme, nil)
	require.Equal(t, http.StatusOK, r.Status, r.Raw)
	requireOriginalShape(t, "deleteAgendaBlock", r)
	require.Equal(t, []string{registration, lunch}, blockIDs(r.Obj()["blocks"]))
	require.Equal(t, true, r.Obj()["event"].(map[string]any)["agendaDirty"])
	require.Len(t, b.must(http.StatusOK, http.MethodGet, w.base+"/program", b.acme, nil).Obj()["blocks"], 3)

	// A block that is not there is already deleted: the agenda as it is, nothing recorded.
	before := len(b.changesOf(w.event))
	for _, id := range []string{coffee, "blk_00000000000000000000000000", "nonsense"} {
		r = b.must(http.StatusOK, http.MethodDelete, w.base+"/agenda/blocks/"+id, b.acme, nil)
		require.Equal(t, []string{registration, lunch}, blockIDs(r.Obj()["blocks"]))
	}
	require.Len(t, b.changesOf(w.event), before)

	// Unpublishing withdraws the blocks with the sessions.
	b.must(http.StatusOK, http.MethodPost, w.base+"/agenda/unpublish", b.acme, nil)
	require.Equal(t, []any{}, b.must(http.StatusOK, http.MethodGet, w.base, b.acme, nil).Obj()["publishedBlocks"])
	require.Equal(t, []any{}, b.must(http.StatusOK, http.MethodGet, "/api/v1/public/events/"+w.event+"/agenda.json", "", nil).Obj()["blocks"])
	require.Equal(t, []any{}, b.must(http.StatusOK, http.MethodGet, w.base+"/program", b.acme, nil).Obj()["blocks"])
}

func TestAgendaBlocksGraphQL(t *testing.T) {
	t.Parallel()
	b := setup(t)
	w := b.world()
	const save = `mutation($e: ID!, $in: SaveAgendaBlockInput!) { saveAgendaBlock(eventId: $e, input: $in) {
		aiConfigured event { agendaDirty } blocks { id title kind roomId startsAt endsAt } } }`
	data := b.gqlOK(b.acme, save, map[string]any{"e": w.event,
		"in": blockBody(nil, "Drinks", "social", nil, "2027-09-11T16:00:00Z", "2027-09-11T18:00:00Z")})
	a := data["saveAgendaBlock"].(map[string]any)
	require.Equal(t, false, a["aiConfigured"])
	require.Equal(t, true, a["event"].(map[string]any)["agendaDirty"])
	id := blockIDs(a["blocks"])[0]
	require.Equal(t, map[string]any{"id": id, "title": "Drinks", "kind": "social", "roomId": nil,
		"startsAt": "2027-09-11T16:00:00.000Z", "endsAt": "2027-09-11T18:00:00.000Z"}, objects(a["blocks"])[0])

	r := b.gql(b.acme, save, map[string]any{"e": w.event,
		"in": blockBody(nil, "Drinks", "party", nil, "2027-09-11T16:00:00Z", "2027-09-11T18:00:00Z")})
	require.Equal(t, []string{"invalid_input"}, r.Codes(), r.Raw)
	require.Equal(t, "Choose a kind of block: break, meal, registration, social, other", r.Errors[0].Message)

	data = b.gqlOK(b.acme, `mutation($e: ID!, $b: ID!) { deleteAgendaBlock(eventId: $e, blockId: $b) { blocks { id } } }`,
		map[string]any{"e": w.event, "b": id})
	require.Equal(t, []any{}, data["deleteAgendaBlock"].(map[string]any)["blocks"])
}

// TestAgendaBlockRules: what the original refuses is refused with its reason, and nothing is
// written: no block, no agendaDirty, no change recorded.
func TestAgendaBlockRules(t *testing.T) {
	t.Parallel()
	b := setup(t)
	st := b.stage()
	w := st.w
	other := str(b.createEvent(b.acme, "Other"), "id")
	otherRoom := str(b.saveItem(b.acme, other, map[string]any{"kind": "room", "name": "Elsewhere"}), "id")
	globexEvent := str(b.createEvent(b.globex, "Globex"), "id")
	globexRoom := str(b.saveItem(b.globex, globexEvent, map[string]any{"kind": "room", "name": "Theirs"}), "id")
	long := ""
	for range 201 {
		long += "x"
	}
	const start, end = "2027-09-10T10:00:00Z", "2027-09-10T11:00:00Z"
	for name, tc := range map[string]struct {
		body    map[string]any
		message string
	}{
		"UnknownID":       {blockBody("blk_00000000000000000000000000", "Lunch", "meal", nil, start, end), "Choose a block to edit"},
		"MalformedID":     {blockBody("lunch", "Lunch", "meal", nil, start, end), "Choose a block to edit"},
		"RoomOfAnother":   {blockBody(nil, "Lunch", "meal", otherRoom, start, end), "Choose a room from this event, or none for every room"},
		"RoomOfGlobex":    {blockBody(nil, "Lunch", "meal", globexRoom, start, end), "Choose a room from this event, or none for every room"},
		"UnknownRoom":     {blockBody(nil, "Lunch", "meal", "room_00000000000000000000000000", start, end), "Choose a room from this event, or none for every room"},
		"EndBeforeStart":  {blockBody(nil, "Lunch", "meal", nil, end, start), "End time must be after start time"},
		"Empty":           {blockBody(nil, "Lunch", "meal", nil, start, start), "End time must be after start time"},
		"AcrossDays":      {blockBody(nil, "Party", "social", nil, "2027-09-10T20:00:00Z", "2027-09-10T22:30:00Z"), "Keep the block within one event day"},
		"BeforeTheEvent":  {blockBody(nil, "Lunch", "meal", nil, "2027-09-09T10:00:00Z", "2027-09-09T11:00:00Z"), "Keep the block within one event day"},
		"AfterTheEvent":   {blockBody(nil, "Lunch", "meal", nil, "2027-09-13T10:00:00Z", "2027-09-13T11:00:00Z"), "Keep the block within one event day"},
		"OffMarkStart":    {blockBody(nil, "Lunch", "meal", nil, "2027-09-10T10:03:00Z", end), "Start and end the block on 5-minute marks"},
		"OffMarkEnd":      {blockBody(nil, "Lunch", "meal", nil, start, "2027-09-10T11:00:30Z"), "Start and end the block on 5-minute marks"},
		"BadKind":         {blockBody(nil, "Lunch", "keynote", nil, start, end), "Choose a kind of block: break, meal, registration, social, other"},
		"BlankTitle":      {blockBody(nil, "   ", "meal", nil, start, end), "Give the block a title of 1 to 200 characters"},
		"LongTitle":       {blockBody(nil, long, "meal", nil, start, end), "Give the block a title of 1 to 200 characters"},
		"UnreadableStart": {blockBody(nil, "Lunch", "meal", nil, "noon", end), ""},
	} {
		t.Run(name, func(t *testing.T) {
			r := b.saveBlock(w, tc.body)
			b.requireError(r, http.StatusBadRequest, "invalid_input")
			if tc.message != "" {
				require.Equal(t, tc.message, r.ErrMessage())
			}
		})
	}
	for _, key := range []string{"id", "title", "kind", "roomId", "startsAt", "endsAt"} {
		t.Run("Missing_"+key, func(t *testing.T) {
			body := blockBody(nil, "Lunch", "meal", nil, start, end)
			delete(body, key)
			r := b.saveBlock(w, body)
			b.requireError(r, http.StatusBadRequest, "invalid_body")
			require.Equal(t, key+" is required", r.ErrMessage())
		})
	}
	agenda := b.must(http.StatusOK, http.MethodGet, w.base+"/agenda", b.acme, nil).Obj()
	require.Equal(t, []any{}, agenda["blocks"])
	require.Equal(t, false, agenda["event"].(map[string]any)["agendaDirty"])
	require.Empty(t, b.changesOf(w.event, "agenda.changed"))
	var n int
	require.NoError(t, b.db.System.QueryRow(b.sys(), `SELECT count(*) FROM agenda_blocks`).Scan(&n))
	require.Zero(t, n)
}

// TestAgendaBlocksOtherOrganization: another organization's key neither writes nor reads the
// blocks of an event (403 forbidden, as every route of an event it does not own).
func TestAgendaBlocksOtherOrganization(t *testing.T) {
	t.Parallel()
	b := setup(t)
	st := b.stage()
	w := st.w
	lunch := blockIDs(b.must(http.StatusOK, http.MethodPut, w.base+"/agenda/blocks", b.acme,
		blockBody(nil, "Secret lunch", "meal", st.hall, "2027-09-10T10:00:00Z", "2027-09-10T11:00:00Z")).Obj()["blocks"])[0]
	b.must(http.StatusOK, http.MethodPost, w.base+"/agenda/publish", b.acme, nil)

	r := b.do(http.MethodPut, w.base+"/agenda/blocks", b.globex,
		blockBody(lunch, "Taken", "meal", nil, "2027-09-10T10:00:00Z", "2027-09-10T11:00:00Z"))
	b.requireError(r, http.StatusForbidden, "forbidden")
	r = b.do(http.MethodPut, w.base+"/agenda/blocks", b.globex,
		blockBody(nil, "Planted", "meal", nil, "2027-09-10T10:00:00Z", "2027-09-10T11:00:00Z"))
	b.requireError(r, http.StatusForbidden, "forbidden")
	r = b.do(http.MethodDelete, w.base+"/agenda/blocks/"+lunch, b.globex, nil)
	b.requireError(r, http.StatusForbidden, "forbidden")
	for _, path := range []string{w.base, w.base + "/agenda", w.base + "/program"} {
		r = b.do(http.MethodGet, path, b.globex, nil)
		b.requireError(r, http.StatusForbidden, "forbidden")
		require.NotContains(t, r.Raw, "Secret lunch")
	}
	require.NotContains(t, b.must(http.StatusOK, http.MethodGet, "/api/v1/events", b.globex, nil).Raw, "Secret lunch")
	g := b.gql(b.globex, `mutation($e: ID!, $b: ID!) { deleteAgendaBlock(eventId: $e, blockId: $b) { blocks { id } } }`,
		map[string]any{"e": w.event, "b": lunch})
	require.Equal(t, []string{"forbidden"}, g.Codes(), g.Raw)
	g = b.gql(b.globex, `query($id: ID!) { event(id: $id) { agenda { blocks { title } } publishedBlocks { title } } }`,
		map[string]any{"id": w.event})
	require.NotContains(t, g.Raw, "Secret lunch")

	agenda := b.must(http.StatusOK, http.MethodGet, w.base+"/agenda", b.acme, nil).Obj()
	require.Equal(t, []any{map[string]any{"id": lunch, "title": "Secret lunch", "kind": "meal", "roomId": st.hall,
		"startsAt": "2027-09-10T10:00:00.000Z", "endsAt": "2027-09-10T11:00:00.000Z"}}, agenda["blocks"])
	require.Equal(t, false, agenda["event"].(map[string]any)["agendaDirty"])
}
