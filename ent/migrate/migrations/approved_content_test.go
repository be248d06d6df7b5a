package migrations_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/migrate/migrations"
	"github.com/podium/podium/ent/pgtest"
)

// approvedContentVersion is the migration TestApprovedContentMigration checks.
const approvedContentVersion = "20261127030000"

// TestApprovedContentMigration runs the approved-content migration on rows written before it
// (docs/profile-review.md "Data from before"): an accepted session untouched since its decision
// gets its content as snapshot; one changed since (maybe a speaker's edit) gets none and waits as
// pending_review; speakers of accepted sessions get their profile approved; the published agenda
// keeps only approved content and named speakers.
func TestApprovedContentMigration(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, pgtest.NewEmpty(t))
	require.NoError(t, err)
	t.Cleanup(pool.Close)

	files, err := migrations.List()
	require.NoError(t, err)
	var mine *migrations.File
	exec := func(sql string) {
		t.Helper()
		require.NoError(t, pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, "SELECT set_config('podium.system', 'on', true)"); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, sql)
			return err
		}))
	}
	for _, f := range files {
		switch {
		case f.Version < approvedContentVersion:
			exec(f.SQL)
		case f.Version == approvedContentVersion:
			mine = &f
		}
	}
	require.NotNil(t, mine, "the migration is in the list")

	// Before: two accepted sessions without a snapshot — one untouched since its decision, one
	// edited after it — both published with their live content, and their speakers.
	exec(`
INSERT INTO organizations (id, created_at, updated_at, name, slug) VALUES ('org_1', now(), now(), 'O', 'o');
INSERT INTO events (id, created_at, updated_at, name, slug, timezone, starts_at, ends_at, published_agenda,
  agenda_published_at, organization_id)
VALUES ('evt_1', now(), now(), 'E', 'e', 'UTC', now(), now(), '[
  {"id": "sub_kept", "code": "SESS-1", "title": "Accepted title", "description": "Accepted", "startsAt": "2027-01-01T09:00:00.000Z",
   "endsAt": "2027-01-01T10:00:00.000Z", "roomName": "Hall", "tracks": [],
   "speakers": [{"id": "ct_ada", "name": "Ada Lovelace"}, {"id": "ct_anon", "name": "anon -"}]},
  {"id": "sub_edited", "code": "SESS-2", "title": "Unapproved edit", "description": "Unapproved", "startsAt": "2027-01-01T11:00:00.000Z",
   "endsAt": "2027-01-01T12:00:00.000Z", "roomName": "Hall", "tracks": [], "speakers": [{"id": "ct_ada", "name": "Ada Lovelace"}]}
]', now(), 'org_1');
INSERT INTO contacts (id, created_at, updated_at, email, first_name, last_name, custom, approved_profile, event_id) VALUES
  ('ct_ada', now(), now(), 'ada@example.test', 'Ada', 'Lovelace', '{}', '{}', 'evt_1'),
  ('ct_anon', now(), now(), 'anon@example.test', 'anon', '-', '{}', '{}', 'evt_1'),
  ('ct_grace', now(), now(), 'grace@example.test', 'Grace', 'Hopper', '{}', '{}', 'evt_1');
INSERT INTO submissions (id, created_at, updated_at, number, code, status, title, description, answers,
  approved_snapshot, content_review_status, event_id) VALUES
  ('sub_kept', now(), '2026-01-01T10:00:00Z', 1, 'SESS-1', 'accepted', 'Accepted title', 'Accepted', '{}', '{}', 'pending_review', 'evt_1'),
  ('sub_edited', now(), '2026-01-02T10:00:00Z', 2, 'SESS-2', 'accepted', 'Unapproved edit', 'Unapproved', '{}', '{}', 'rejected', 'evt_1'),
  ('sub_pending', now(), now(), 3, 'SESS-3', 'pending', 'A proposal', '', '{}', '{}', 'approved', 'evt_1');
INSERT INTO submission_participants (id, created_at, updated_at, contact_id, submission_id, position) VALUES
  ('sp_1', now(), now(), 'ct_ada', 'sub_kept', 0), ('sp_2', now(), now(), 'ct_anon', 'sub_kept', 1),
  ('sp_3', now(), now(), 'ct_ada', 'sub_edited', 0), ('sp_4', now(), now(), 'ct_grace', 'sub_pending', 0);
INSERT INTO timeline_entries (id, created_at, updated_at, kind, label, actor_name, at, submission_id) VALUES
  ('tl_1', now(), now(), 'decided', 'Accepted', 'Org', '2026-01-01T10:00:01Z', 'sub_kept'),
  ('tl_2', now(), now(), 'decided', 'Accepted', 'Org', '2026-01-01T10:00:01Z', 'sub_edited');`)

	exec(mine.SQL)

	type row struct {
		snapshot map[string]any
		status   string
	}
	session := func(id string) row {
		var r row
		require.NoError(t, pool.QueryRow(ctx, `SELECT approved_snapshot, content_review_status FROM submissions WHERE id = $1`,
			id).Scan(&r.snapshot, &r.status))
		return r
	}
	kept := session("sub_kept")
	require.Equal(t, "Accepted title", kept.snapshot["title"], "untouched since acceptance: its content is what was accepted")
	require.Equal(t, "pending_review", kept.status)
	edited := session("sub_edited")
	require.Empty(t, edited.snapshot, "changed after acceptance: nothing to vouch for")
	require.Equal(t, "pending_review", edited.status, "waiting for the organizers")
	require.Empty(t, session("sub_pending").snapshot, "not accepted: not touched")

	profile := func(id string) map[string]any {
		var p map[string]any
		require.NoError(t, pool.QueryRow(ctx, `SELECT approved_profile FROM contacts WHERE id = $1`, id).Scan(&p))
		return p
	}
	require.Equal(t, map[string]any{"firstName": "Ada", "lastName": "Lovelace", "pronouns": nil, "bio": nil,
		"linkedinUrl": nil, "twitterUrl": nil, "facebookUrl": nil, "websiteUrl": nil, "headshotUrl": nil,
		"headshotKey": nil}, profile("ct_ada"))
	require.Empty(t, profile("ct_grace"), "no accepted session")

	var raw []byte
	require.NoError(t, pool.QueryRow(ctx, `SELECT published_agenda FROM events WHERE id = 'evt_1'`).Scan(&raw))
	var agenda []map[string]any
	require.NoError(t, json.Unmarshal(raw, &agenda))
	require.Len(t, agenda, 1, "the session with nothing approved leaves the published agenda")
	require.Equal(t, "sub_kept", agenda[0]["id"])
	require.Equal(t, "Accepted title", agenda[0]["title"])
	require.Equal(t, "Hall", agenda[0]["roomName"], "the rest of the entry as it was")
	require.Equal(t, []any{map[string]any{"id": "ct_ada", "name": "Ada Lovelace"}}, agenda[0]["speakers"],
		"a speaker named after their address is left out")
}
