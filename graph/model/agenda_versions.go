package model

import (
	"encoding/json"

	"github.com/podium/podium/ent/schema/agenda"
	"github.com/podium/podium/graph/scalar"
)

// AgendaVersionSummary is a published version of an agenda as the list of versions shows it
// (Agenda.versions, GET E/agenda/versions).
type AgendaVersionSummary struct {
	Number      int              `json:"number"`
	PublishedAt scalar.Timestamp `json:"publishedAt"`
	PublishedBy string           `json:"publishedBy"`
	ChangeCount int              `json:"changeCount"`
}

// AgendaVersion is one published version of an agenda with what it froze and what changed since
// the version before (Agenda.version, GET E/agenda/versions/{number}).
type AgendaVersion struct {
	Number      int              `json:"number"`
	PublishedAt scalar.Timestamp `json:"publishedAt"`
	PublishedBy string           `json:"publishedBy"`
	Sessions    []agenda.Entry   `json:"sessions"`
	Blocks      []agenda.Block   `json:"blocks"`
	Changes     []agenda.Change  `json:"changes"`
}

// MarshalJSON answers the changes with every key present (AgendaChangeJSON), as REST's read
// models do.
func (v AgendaVersion) MarshalJSON() ([]byte, error) {
	type fields AgendaVersion
	return json.Marshal(struct {
		fields
		Changes []AgendaChangeJSON `json:"changes"`
	}{fields(v), AgendaChangesJSON(v.Changes)})
}

// AgendaChangeJSON is an agenda.Change as REST and the public changelog answer it: every key
// present, "" for the ids and code that do not apply (a block has no sessionId or code, a session
// no blockId) and null for the before and after that do not. agenda.Change itself leaves them out,
// as the versions store them.
type AgendaChangeJSON struct {
	SessionID   string        `json:"sessionId"`
	BlockID     string        `json:"blockId"`
	Code        string        `json:"code"`
	Title       string        `json:"title"`
	Kinds       []string      `json:"kinds"`
	Before      *agenda.Entry `json:"before"`
	After       *agenda.Entry `json:"after"`
	BeforeBlock *agenda.Block `json:"beforeBlock"`
	AfterBlock  *agenda.Block `json:"afterBlock"`
}

// AgendaChangesJSON converts changes for REST; never nil.
func AgendaChangesJSON(changes []agenda.Change) []AgendaChangeJSON {
	out := make([]AgendaChangeJSON, len(changes))
	for i, c := range changes {
		out[i] = AgendaChangeJSON(c)
	}
	return out
}
