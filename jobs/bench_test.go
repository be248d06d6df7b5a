package jobs_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/wneessen/go-mail"

	"github.com/podium/podium/ent/emaillog"
	"github.com/podium/podium/ent/pgtest"
	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/graph/email"
	"github.com/podium/podium/jobs"
	"github.com/podium/podium/jobs/mailtest"
)

// BenchmarkEmailOutbox queues 10,000 emails in one transaction and delivers them to a local SMTP
// sink that accepts everything, next to floors measured in the same run: the same number of bare
// SMTP sends from one Go loop (the floor), and from as many loops and connections as
// Podium opens to the relay (the floor of a parallel sender, which is what Podium is). Floor and
// Podium rounds alternate. Run with `make bench`.
func BenchmarkEmailOutbox(b *testing.B) {
	const n = 10_000
	var loops, parallels, delivers, queues []float64
	for range b.N {
		for round := range 2 {
			loop := smtpFloor(b, n, 1)
			parallel := smtpFloor(b, n, jobs.DefaultSMTPConnections)
			queue, deliver := podiumDelivery(b, n)
			b.Logf("round %d: floor %.0f msg/s (one loop), %.0f msg/s (%d loops); queue %.2f s; delivery %.0f msg/s",
				round+1, loop, parallel, jobs.DefaultSMTPConnections, queue.Seconds(), deliver)
			loops, parallels = append(loops, loop), append(parallels, parallel)
			delivers, queues = append(delivers, deliver), append(queues, queue.Seconds())
		}
	}
	queue, deliver, loop, parallel := median(queues), median(delivers), median(loops), median(parallels)
	b.ReportMetric(queue, "queue_s")
	b.ReportMetric(deliver, "deliver_msg/s")
	b.ReportMetric(loop, "floor_loop_msg/s")
	b.ReportMetric(parallel, "floor_parallel_msg/s")
	fmt.Printf("BENCH email queue_s=%.2f deliver_msgs_per_s=%.0f floor_loop_msgs_per_s=%.0f ratio_loop=%.2f "+
		"floor_parallel_msgs_per_s=%.0f ratio_parallel=%.2f\n",
		queue, deliver, loop, loop/deliver, parallel, parallel/deliver)
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[len(s)/2]
}

// smtpFloor sends n messages like Podium's (text, HTML) over `conns` persistent connections.
func smtpFloor(b *testing.B, n, conns int) float64 {
	sink := mailtest.New(b, mailtest.Options{Discard: true})
	// The loops skip go-mail's NOOP and RSET around each message; Podium's sender sends no RSET
	// and one NOOP per message on a reused connection, so this floor is a round trip faster.
	client, err := mail.NewClient("127.0.0.1", mail.WithPort(port(sink)), mail.WithTLSPolicy(mail.NoTLS),
		mail.WithoutNoop(), mail.WithoutRset())
	require.NoError(b, err)
	r, err := email.Render(email.PortalInvitation, email.Data{EventName: "GopherCon EU", FirstName: "Ada", Link: "https://x.test/portal"})
	require.NoError(b, err)
	start := time.Now()
	var wg sync.WaitGroup
	for w := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := client.DialToSMTPClientWithContext(context.Background())
			if err != nil {
				b.Error(err)
				return
			}
			defer func() { _ = client.CloseWithSMTPClient(c) }()
			for i := w; i < n; i += conns {
				m := mail.NewMsg()
				_ = m.From("podium@example.test")
				_ = m.To("ada@example.test")
				m.Subject(r.Subject)
				m.SetBodyString(mail.TypeTextPlain, r.Text)
				m.AddAlternativeString(mail.TypeTextHTML, r.HTML)
				if err := client.SendWithSMTPClient(c, m); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	require.EqualValues(b, n, sink.Count())
	return float64(n) / time.Since(start).Seconds()
}

// podiumDelivery queues n emails in one transaction, then starts the workers and waits until
// every row is sent.
func podiumDelivery(b *testing.B, n int) (time.Duration, float64) {
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
	batch := make([]email.Email, n)
	for i := range batch {
		batch[i] = email.Email{EventID: ev.ID, Type: emaillog.TypeCustom, To: "ada@example.test",
			Template: email.PortalInvitation, Data: email.Data{EventName: ev.Name, FirstName: "Ada", Path: "/portal"}}
	}

	start := time.Now()
	require.NoError(b, db.InTx(ctx, func(ctx context.Context) error {
		_, err := outbox.Queue(ctx, batch...)
		return err
	}))
	queued := time.Since(start)

	start = time.Now()
	require.NoError(b, rc.Start(ctx))
	for sink.Count() < int64(n) {
		time.Sleep(5 * time.Millisecond)
	}
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
	require.EqualValues(b, n, sink.Count(), "each email delivered once")
	return queued, float64(n) / elapsed.Seconds()
}

func port(s *mailtest.Sink) int {
	var p int
	_, _ = fmt.Sscanf(s.Addr()[len("127.0.0.1:"):], "%d", &p)
	return p
}
