package jobs_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/emaillog"
	"github.com/podium/podium/ent/pgtest"
	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/graph/email"
	"github.com/podium/podium/jobs"
	"github.com/podium/podium/jobs/mailtest"
)

// BenchmarkEmailToContacts delivers n emails to an event's contact, each carrying an access link
// minted at delivery (one INSERT per email, jobs.MintAccessLink), next to the same n emails to an
// address that is no contact, in alternating rounds, and prints both rates (docs/performance.md).
// Run with `make bench`.
func BenchmarkEmailToContacts(b *testing.B) {
	const n = 5_000
	var plain, contact []float64
	for range b.N {
		for range 2 {
			plain = append(plain, contactDelivery(b, n, false))
			contact = append(contact, contactDelivery(b, n, true))
		}
	}
	p, c := median(plain), median(contact)
	b.ReportMetric(c, "deliver_contact_msg/s")
	b.ReportMetric(p, "deliver_plain_msg/s")
	fmt.Printf("BENCH email_contacts n=%d deliver_plain_msgs_per_s=%.0f deliver_contact_msgs_per_s=%.0f ratio=%.2f\n",
		n, p, c, p/c)
}

// contactDelivery queues n emails in one transaction, to a contact or not, then starts the workers
// and returns the rate at which every row is sent.
func contactDelivery(b *testing.B, n int, toContact bool) float64 {
	ctx := context.Background()
	db := pgtest.New(b)
	sink := mailtest.New(b, mailtest.Options{Discard: true})
	sender, err := jobs.NewSMTPSender(sink.URL(), "podium@example.test", jobs.SMTPOptions{})
	require.NoError(b, err)
	defer sender.Close()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	rc, err := jobs.NewClient(db, jobs.Config{Work: true, Sender: sender, Log: quiet})
	require.NoError(b, err)
	outbox := &email.Outbox{Jobs: rc, PublicURL: "https://x.test"}
	org, err := db.Ent.Organization.Create().SetName("Acme").SetSlug("acme").
		Save(viewer.System(ctx, "bench: create an organization"))
	require.NoError(b, err)
	ctx = viewer.WithOrganization(ctx, org.ID)
	ev, err := db.Ent.Event.Create().SetOrganizationID(org.ID).SetName("GopherCon EU").SetSlug("gc").
		SetTimezone("UTC").SetStartsAt(time.Now()).SetEndsAt(time.Now().Add(time.Hour)).Save(ctx)
	require.NoError(b, err)
	var contactID *string
	if toContact {
		ct, err := db.Ent.Contact.Create().SetEventID(ev.ID).SetFirstName("Ada").SetLastName("Lovelace").
			SetEmail("ada@example.test").Save(ctx)
		require.NoError(b, err)
		contactID = &ct.ID
	}
	batch := make([]email.Email, n)
	for i := range batch {
		batch[i] = email.Email{EventID: ev.ID, ContactID: contactID, Type: emaillog.TypeCustom, To: "ada@example.test",
			Template: email.PortalInvitation, Data: email.Data{EventName: ev.Name, FirstName: "Ada", Path: "/portal"}}
	}
	require.NoError(b, db.InTx(ctx, func(ctx context.Context) error {
		_, err := outbox.Queue(ctx, batch...)
		return err
	}))
	start := time.Now()
	require.NoError(b, rc.Start(ctx))
	for {
		sent, err := db.Ent.EmailLog.Query().Where(emaillog.StatusEQ(emaillog.StatusSent)).Count(ctx)
		require.NoError(b, err)
		if sent == n {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	elapsed := time.Since(start)
	stopCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	require.NoError(b, rc.Stop(stopCtx))
	if toContact {
		links := 0
		require.NoError(b, db.System.QueryRow(viewer.System(ctx, "bench: count links"),
			`SELECT count(*) FROM contact_access_links`).Scan(&links))
		require.Equal(b, n, links, "one link per email to the contact")
	}
	return float64(n) / elapsed.Seconds()
}
