package rest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	ics "github.com/arran4/golang-ical"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/schema/agenda"
	"github.com/podium/podium/ent/schema/viewer"
)

// publishWithBlocks schedules the stage's two talks, adds a lunch in every room and a coffee break
// in the Hall, publishes, and returns the blocks the publish froze (lunch, then coffee).
func (b *testBundle) publishWithBlocks(st stage) []agenda.Block {
	b.t.Helper()
	require.Equal(b.t, http.StatusOK, b.schedule(st, st.go2, st.hall, "2027-09-11T09:00:00Z", "2027-09-11T09:45:00Z").Status)
	require.Equal(b.t, http.StatusOK, b.schedule(st, st.go1, st.annex, "2027-09-10T12:00:00Z", "2027-09-10T12:30:00Z").Status)
	b.must(http.StatusOK, http.MethodPut, st.w.base+"/agenda/blocks", b.acme,
		blockBody(nil, "Lunch", "meal", nil, "2027-09-10T11:00:00Z", "2027-09-10T12:00:00Z"))
	b.must(http.StatusOK, http.MethodPut, st.w.base+"/agenda/blocks", b.acme,
		blockBody(nil, "Coffee", "break", st.hall, "2027-09-11T08:30:00Z", "2027-09-11T09:00:00Z"))
	b.must(http.StatusOK, http.MethodPost, st.w.base+"/agenda/publish", b.acme, nil)
	ctx := viewer.System(context.Background(), "test: the blocks the publish froze")
	ev, err := b.db.Ent.Event.Get(ctx, st.w.event)
	require.NoError(b.t, err)
	require.Len(b.t, ev.PublishedBlocks, 2)
	return ev.PublishedBlocks
}

func TestScheduleCalendarHasBlocks(t *testing.T) {
	t.Parallel()
	b := setup(t)
	st := b.stage()
	blocks := b.publishWithBlocks(st)
	rec := b.sendRaw(b.request(http.MethodGet, "/api/v1/public/events/"+st.w.event+"/agenda.ics", ""))
	require.Equal(t, http.StatusOK, rec.Code)
	cal, err := ics.ParseCalendar(strings.NewReader(rec.Body.String()))
	require.NoError(t, err)
	byUID := map[string]*ics.VEvent{}
	for _, ev := range cal.Events() {
		byUID[ev.Id()] = ev
	}
	require.Len(t, byUID, 4, "two sessions and two blocks")
	require.Contains(t, byUID, st.go1+"@podium")
	lunch := byUID[blocks[0].ID+"@podium"]
	require.NotNil(t, lunch)
	require.Equal(t, "Lunch", lunch.GetProperty(ics.ComponentPropertySummary).Value)
	require.Nil(t, lunch.GetProperty(ics.ComponentPropertyLocation), "a block of every room names no room")
	start, err := lunch.GetStartAt()
	require.NoError(t, err)
	require.True(t, start.Equal(time.Date(2027, 9, 10, 11, 0, 0, 0, time.UTC)))
	coffee := byUID[blocks[1].ID+"@podium"]
	require.NotNil(t, coffee)
	require.Equal(t, "Hall", coffee.GetProperty(ics.ComponentPropertyLocation).Value)
	require.Equal(t, "break", coffee.GetProperty(ics.ComponentPropertyCategories).Value)
}

// scheduleSchemas are the c3voc schemas, vendored in testdata/schedule (see its README).
func validateScheduleJSON(t *testing.T, body []byte) {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	f, err := os.Open(filepath.Join("testdata", "schedule", "schema.json"))
	require.NoError(t, err)
	defer func() { require.NoError(t, f.Close()) }()
	doc, err := jsonschema.UnmarshalJSON(f)
	require.NoError(t, err)
	require.NoError(t, c.AddResource("https://c3voc.de/schedule/schema.json", doc))
	sch, err := c.Compile("https://c3voc.de/schedule/schema.json")
	require.NoError(t, err)
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	require.NoError(t, err)
	require.NoError(t, sch.Validate(inst), string(body))
}

// validateScheduleXML validates with xmllint, which CI installs (libxml2-utils in .ci/run): a run
// without it fails rather than skipping.
func validateScheduleXML(t *testing.T, body []byte) {
	t.Helper()
	xmllint, err := exec.LookPath("xmllint")
	require.NoError(t, err, "xmllint validates schedule.xml against its XSD: apt-get install libxml2-utils")
	file := filepath.Join(t.TempDir(), "schedule.xml")
	require.NoError(t, os.WriteFile(file, body, 0o600))
	out, err := exec.Command(xmllint, "--noout", "--schema", filepath.Join("testdata", "schedule", "schedule.xml.xsd"), file).CombinedOutput()
	require.NoError(t, err, "%s\n%s", out, body)
}

func TestScheduleExports(t *testing.T) {
	t.Parallel()
	b := setup(t)
	st := b.stage()
	base := "/api/v1/public/events/" + st.w.event

	// Before any publish the exports hold the event's days and nothing in them, as the public
	// agenda holds no sessions; an unknown event is 404.
	empty := b.must(http.StatusOK, http.MethodGet, base+"/schedule.json", "", nil).Raw
	validateScheduleJSON(t, []byte(empty))
	require.NotContains(t, empty, st.go1)
	emptyXML := b.sendRaw(b.request(http.MethodGet, base+"/schedule.xml", ""))
	require.Equal(t, http.StatusOK, emptyXML.Code)
	validateScheduleXML(t, emptyXML.Body.Bytes())
	b.requireError(b.do(http.MethodGet, "/api/v1/public/events/evt_0000000000000000000000000/schedule.json", "", nil), 404, "not_found")
	b.requireError(b.do(http.MethodGet, "/api/v1/public/events/garbage/schedule.xml", "", nil), 404, "not_found")

	b.publishWithBlocks(st)
	raw := b.must(http.StatusOK, http.MethodGet, base+"/schedule.json", "", nil).Raw
	validateScheduleJSON(t, []byte(raw))
	rec := b.sendRaw(b.request(http.MethodGet, base+"/schedule.xml", ""))
	require.Equal(t, http.StatusOK, rec.Code)
	require.Equal(t, "application/xml; charset=utf-8", rec.Header().Get("Content-Type"))
	require.NotEmpty(t, rec.Header().Get("ETag"))
	xmlBody := rec.Body.String()
	validateScheduleXML(t, []byte(xmlBody))

	var doc struct {
		Schedule struct {
			Conference struct {
				TimeZoneName string `json:"time_zone_name"`
				Rooms        []struct{ Name, GUID string }
				Days         []struct {
					Index int
					Date  string
					Rooms map[string][]struct {
						GUID, Title, Type, Room, Date, Start, Duration string
						ID                                             int
						Track                                          *string
						Persons                                        []struct{ GUID, Name string }
					}
				}
			}
		}
	}
	require.NoError(t, json.Unmarshal([]byte(raw), &doc))
	c := doc.Schedule.Conference
	require.Equal(t, "Europe/Berlin", c.TimeZoneName)
	require.Len(t, c.Days, 3, "the event runs 2027-09-10 to 12")
	require.Equal(t, []string{"2027-09-10", "2027-09-11", "2027-09-12"}, []string{c.Days[0].Date, c.Days[1].Date, c.Days[2].Date})
	require.Equal(t, 1, c.Days[0].Index)
	rooms := map[string]string{}
	for _, rm := range c.Rooms {
		rooms[rm.Name] = rm.GUID
	}
	require.Contains(t, rooms, "Hall")
	require.Contains(t, rooms, "Annex")
	// Day one: the lunch in both rooms, then Generics in the Annex at 14:00 Berlin time.
	annex := c.Days[0].Rooms["Annex"]
	require.Len(t, annex, 2)
	require.Equal(t, "Lunch", annex[0].Title)
	require.Equal(t, "meal", annex[0].Type)
	require.Equal(t, "Generics", annex[1].Title)
	require.Equal(t, "talk", annex[1].Type)
	require.Equal(t, "2027-09-10T14:00:00+02:00", annex[1].Date)
	require.Equal(t, "14:00", annex[1].Start)
	require.Equal(t, "00:30", annex[1].Duration)
	require.Equal(t, "Go", *annex[1].Track)
	require.Equal(t, []string{"Ada Lovelace", "Alan Turing"}, []string{annex[1].Persons[0].Name, annex[1].Persons[1].Name})
	require.Len(t, c.Days[0].Rooms["Hall"], 1, "the lunch of every room is in the Hall too")
	require.NotEqual(t, annex[0].GUID, c.Days[0].Rooms["Hall"][0].GUID, "guids are unique in the document")
	hall := c.Days[1].Rooms["Hall"]
	require.Len(t, hall, 2)
	require.Equal(t, []string{"Coffee", "Fuzzing"}, []string{hall[0].Title, hall[1].Title})
	require.Equal(t, "break", hall[0].Type)
	require.Equal(t, annex[1].Persons[1].GUID, hall[1].Persons[0].GUID, "a speaker has one guid")
	require.Empty(t, c.Days[2].Rooms)

	// The XML carries the same guids.
	for _, g := range []string{annex[0].GUID, annex[1].GUID, hall[0].GUID, hall[1].GUID, rooms["Hall"], annex[1].Persons[0].GUID} {
		require.Contains(t, xmlBody, `guid="`+g+`"`)
	}
	require.Contains(t, xmlBody, `<event id="`+itoa(annex[1].ID)+`" guid="`+annex[1].GUID+`">`)

	// A second publish, with Generics moved, keeps every guid and id.
	require.Equal(t, http.StatusOK, b.schedule(st, st.go1, st.hall, "2027-09-10T15:00:00Z", "2027-09-10T15:45:00Z").Status)
	b.must(http.StatusOK, http.MethodPost, st.w.base+"/agenda/publish", b.acme, nil)
	again := b.must(http.StatusOK, http.MethodGet, base+"/schedule.json", "", nil).Raw
	validateScheduleJSON(t, []byte(again))
	require.NotEqual(t, raw, again)
	var doc2 struct {
		Schedule struct {
			Conference struct {
				Rooms []struct{ Name, GUID string }
				Days  []struct {
					Rooms map[string][]struct {
						GUID, Title, Start string
						ID                 int
					}
				}
			}
		}
	}
	require.NoError(t, json.Unmarshal([]byte(again), &doc2))
	moved := doc2.Schedule.Conference.Days[0].Rooms["Hall"]
	require.Len(t, moved, 2)
	require.Equal(t, "Generics", moved[1].Title)
	require.Equal(t, "17:00", moved[1].Start)
	require.Equal(t, annex[1].GUID, moved[1].GUID)
	require.Equal(t, annex[1].ID, moved[1].ID)
	require.Equal(t, hall[1].GUID, doc2.Schedule.Conference.Days[1].Rooms["Hall"][1].GUID)
	for _, rm := range doc2.Schedule.Conference.Rooms {
		require.Equal(t, rooms[rm.Name], rm.GUID)
	}
	validateScheduleXML(t, b.sendRaw(b.request(http.MethodGet, base+"/schedule.xml", "")).Body.Bytes())
}
