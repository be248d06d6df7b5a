package model

import (
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
