package jobs_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/pgtest"
	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/jobs"
)

// TestServerKey: processes starting at once get one key, the same after a restart; another
// name is another key. A link signed by one process verifies in another.
func TestServerKey(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := viewer.System(context.Background(), "test: server keys")
	keys := make([][]byte, 8)
	var wg sync.WaitGroup
	for i := range keys {
		wg.Go(func() {
			k, err := jobs.ServerKey(ctx, db.System, "unsubscribe")
			require.NoError(t, err)
			keys[i] = k
		})
	}
	wg.Wait()
	require.Len(t, keys[0], 32)
	for _, k := range keys {
		require.Equal(t, keys[0], k)
	}
	again, err := jobs.ServerKey(ctx, db.System, "unsubscribe")
	require.NoError(t, err)
	require.Equal(t, keys[0], again)
	other, err := jobs.ServerKey(ctx, db.System, "another")
	require.NoError(t, err)
	require.NotEqual(t, keys[0], other)

	web, worker := &jobs.Unsubscribe{Key: keys[0]}, &jobs.Unsubscribe{Key: again}
	_, address, err := web.Verify(worker.Token("org_01jdm7x8ztd3k0v8a6e5m4q2c1", "ada@example.test"))
	require.NoError(t, err)
	require.Equal(t, "ada@example.test", address)
}

// TestUnsubscribeToken: a token names its organization and address, and any change to it, or
// another key, is refused.
func TestUnsubscribeToken(t *testing.T) {
	t.Parallel()
	u := &jobs.Unsubscribe{PublicURL: "https://podium.example.test/", Key: []byte("k1")}
	const org = "org_01jdm7x8ztd3k0v8a6e5m4q2c1"
	token := u.Token(org, " Ada@Example.test ")
	require.Equal(t, "https://podium.example.test/unsubscribe/"+token, u.URL(org, "ada@example.test"))
	gotOrg, address, err := u.Verify(token)
	require.NoError(t, err)
	require.Equal(t, org, gotOrg)
	require.Equal(t, "ada@example.test", address)

	_, _, err = (&jobs.Unsubscribe{Key: []byte("k2")}).Verify(token)
	require.ErrorIs(t, err, jobs.ErrBadToken, "another key")
	payload, mac, _ := strings.Cut(token, ".")
	other := (&jobs.Unsubscribe{Key: []byte("k1")}).Token("org_01jdm7x8ztd3k0v8a6e5m4q2c2", "ada@example.test")
	otherPayload, _, _ := strings.Cut(other, ".")
	for _, bad := range []string{otherPayload + "." + mac, payload + "." + strings.ToUpper(mac), payload, "", "..", token + "A"} {
		_, _, err := u.Verify(bad)
		require.ErrorIs(t, err, jobs.ErrBadToken, bad)
	}
}

// TestParseDSN: the failed recipients of a delivery-status notification, with the original
// Message-ID; delayed and delivered recipients and temporary failures are left out.
func TestParseDSN(t *testing.T) {
	t.Parallel()
	raw := strings.ReplaceAll(`From: MAILER-DAEMON@relay.test
Subject: Delivery Status Notification (Failure)
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status;
	boundary="b1"

--b1
Content-Type: text/plain; charset=us-ascii

Delivery failed.

--b1
Content-Type: message/delivery-status

Reporting-MTA: dns; relay.test

Final-Recipient: rfc822; gone@example.test
Action: failed
Status: 5.1.1
Diagnostic-Code: smtp; 550 5.1.1 user unknown

Final-Recipient: rfc822; later@example.test
Action: delayed
Status: 4.4.1

Final-Recipient: rfc822; full@example.test
Action: failed
Status: 4.2.2

--b1
Content-Type: message/rfc822

Message-ID: <eml_01jdm7x8ztd3k0v8a6e5m4q2c1@podium.example.test>
Subject: News

Hello
--b1--
`, "\n", "\r\n")
	got, err := jobs.ParseDSN(strings.NewReader(raw))
	require.NoError(t, err)
	require.Equal(t, []jobs.DSNBounce{{MessageID: "eml_01jdm7x8ztd3k0v8a6e5m4q2c1@podium.example.test",
		Recipient: "gone@example.test", Status: "5.1.1", Diagnostic: "smtp; 550 5.1.1 user unknown"}}, got)
	require.Equal(t, "eml_01jdm7x8ztd3k0v8a6e5m4q2c1", jobs.EmailLogID("<"+got[0].MessageID+">"))
	require.Empty(t, jobs.EmailLogID("<not-ours@elsewhere.test>"))

	for _, bad := range []string{"", "Subject: hi\r\n\r\nhello", strings.ReplaceAll(raw, "Status: 5.1.1", "Status: 4.1.1")} {
		_, err := jobs.ParseDSN(strings.NewReader(bad))
		require.ErrorIs(t, err, jobs.ErrNotDSN)
	}
}
