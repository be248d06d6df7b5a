package jobs_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/podium/podium/graph/model"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/dbx"
	"github.com/podium/podium/ent/emaillog"
	"github.com/podium/podium/ent/pgtest"
	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/graph"
	"github.com/podium/podium/graph/email"
	"github.com/podium/podium/jobs"
)

// BenchmarkCampaignQueue sends one campaign to 10,000 speakers through the operation GraphQL and
// REST call (graph's sendCampaign) and times its transaction: the campaign, 10,000 recipients,
// 10,000 email log rows and their delivery jobs, committed together (docs/campaigns.md). The
// issue asks for under 2 s. Run with `make bench`.
func BenchmarkCampaignQueue(b *testing.B) {
	const n = 10_000
	var times, floors []float64
	var statements int64
	for range b.N {
		for range 3 {
			elapsed, floor, count := campaignQueue(b, n)
			times, floors = append(times, elapsed.Seconds()), append(floors, floor.Seconds())
			statements = count
		}
	}
	queue, floor := median(times), median(floors)
	b.ReportMetric(queue, "queue_s")
	fmt.Printf("BENCH campaign recipients=%d queue_s=%.2f outbox_floor_s=%.2f ratio=%.2f statements=%d rss_mb=%.1f\n",
		n, queue, floor, queue/floor, statements, peakRSS(b))
}

// campaignQueue sends a campaign to n speakers of a fresh event and returns how long the
// transaction took, how long queueing the same number of plain emails through the outbox alone
// takes (the floor: the rows and jobs every email needs), and how many statements the campaign
// sent (COPY not counted).
func campaignQueue(b *testing.B, n int) (time.Duration, time.Duration, int64) {
	ctx := context.Background()
	db := pgtest.New(b)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	rc, err := jobs.NewClient(db, jobs.Config{Log: quiet})
	require.NoError(b, err)
	res := graph.NewResolver(db, &email.Outbox{Jobs: rc, PublicURL: "https://x.test"})

	org, err := db.Ent.Organization.Create().SetName("Acme").SetSlug("acme").
		Save(viewer.System(ctx, "bench: create an organization"))
	require.NoError(b, err)
	ctx = viewer.WithOrganization(ctx, org.ID)
	ev, err := db.Ent.Event.Create().SetOrganizationID(org.ID).SetName("GopherCon EU").SetSlug("gc").
		SetTimezone("UTC").SetStartsAt(time.Now()).SetEndsAt(time.Now().Add(time.Hour)).Save(ctx)
	require.NoError(b, err)
	rows, err := db.Pool.Query(ctx, `INSERT INTO contacts (id, created_at, updated_at, event_id, email, first_name,
		last_name, participation, dietary_requirements, custom, approved_profile, profile_review_status, workflow_status)
		SELECT 'ctc_' || lpad(i::text, 26, '0'), now(), now(), $1, 'speaker' || i || '@example.test', 'Speaker', 'Number ' || i,
		'speaker', 'none', '{}', '{}', 'approved', 'invited' FROM generate_series(1, $2) i RETURNING id`, ev.ID, n)
	require.NoError(b, err)
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(b, err)
	in := model.SendCampaignInput{Subject: "{event_name}: your talk", ContactIds: ids,
		Body: "Hi {speaker_name},\n\nPlease confirm \"{talk_title}\" in your portal: {portal_url}\n\nThe organizers"}

	counted, count := dbx.WithQueryCount(ctx)
	start := time.Now()
	var out *model.SendCampaignResult
	require.NoError(b, db.InTx(counted, func(ctx context.Context) error {
		out, err = res.Mutation().SendCampaign(ctx, ev.ID, in)
		return err
	}))
	elapsed := time.Since(start)
	require.Equal(b, n, out.Sent)
	var queued int
	require.NoError(b, db.Pool.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE kind = 'deliver_email'`).Scan(&queued))
	require.Equal(b, n, queued)

	plain := make([]email.Email, n)
	for i, id := range ids {
		plain[i] = email.Email{EventID: ev.ID, ContactID: &id, Type: emaillog.TypeCustom, To: "ada@example.test",
			Template: email.PortalInvitation, Data: email.Data{EventName: ev.Name, FirstName: "Ada", Path: "/portal"}}
	}
	start = time.Now()
	require.NoError(b, db.InTx(ctx, func(ctx context.Context) error {
		_, err := res.Ops.Outbox.Queue(ctx, plain...)
		return err
	}))
	return elapsed, time.Since(start), count.Load()
}

// peakRSS is this process's peak resident set (VmHWM), in MB.
func peakRSS(b *testing.B) float64 {
	f, err := os.Open("/proc/self/status")
	require.NoError(b, err)
	defer func() { _ = f.Close() }()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(s.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			require.NoError(b, err)
			return kb / 1024
		}
	}
	return 0
}
