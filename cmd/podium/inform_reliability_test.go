//go:build reliability

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/podium/podium/jobs"
)

// gql posts a GraphQL document with the client's key; err is set only when no response arrived.
func (c *apiClient) gql(ctx context.Context, query string, vars map[string]any) (response, error) {
	data, err := json.Marshal(map[string]any{"query": query, "variables": vars})
	if err != nil {
		return response{}, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(c.base, "/api/v1")+"/graphql",
		strings.NewReader(string(data)))
	if err != nil {
		return response{}, err
	}
	req.Header.Set("Authorization", "Bearer "+c.key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return response{}, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return response{}, err
	}
	return response{Status: resp.StatusCode, Body: body}, nil
}

// TestInformSurvivesSIGKILL: 300 proposals decided tentatively (nothing sent), then announced
// one request each by 12 clients; the server is killed after 120 acknowledgements. Once it is back
// the clients announce what they had not sent, and resend what got no answer (an announcement that
// committed is refused as informed already). Every proposal ends informed, with exactly one
// decision email per speaker in the email log, each delivered; an email may arrive twice only if
// it was left sending at the kill (the outbox's bound, jobs.MaxUnrecorded).
func TestInformSurvivesSIGKILL(t *testing.T) {
	t.Parallel()
	const proposals, stopAfter = 300, 120
	b := setupCrash(t, 0, 0)
	ctx := context.Background()

	// A form for the proposals to come from: only a call-for-proposals submission has a decision
	// to announce.
	r, err := b.api.gql(ctx, `mutation($e: ID!) { createForm(eventId: $e, input: {title: "CFP"}) { id } }`,
		map[string]any{"e": b.event})
	require.NoError(t, err)
	var form struct {
		Data struct{ CreateForm struct{ ID string } }
	}
	require.NoError(t, json.Unmarshal(r.Body, &form), "%s", r.Body)
	require.NotEmpty(t, form.Data.CreateForm.ID, "%s", r.Body)
	contacts := slices.Sorted(func(yield func(string) bool) {
		for id := range b.speakers {
			if !yield(id) {
				return
			}
		}
	})
	ids := make([]string, proposals)
	speak := map[string][]string{}
	var mu sync.Mutex
	// One at a time: two proposals created at once may race for the same code and one be refused.
	parallel(t, proposals, 1, func(i int) error {
		who := []string{contacts[i%len(contacts)]}
		if i%2 == 1 {
			who = append(who, contacts[(i+1)%len(contacts)])
		}
		id, err := b.api.mustCreate("/events/"+b.event+"/submissions", map[string]any{"title": fmt.Sprintf("Proposal %d", i),
			"description": "d", "formatId": nil, "trackIds": []any{}, "speakerIds": who})
		if err != nil {
			return err
		}
		mu.Lock()
		ids[i], speak[id] = id, who
		mu.Unlock()
		return nil
	})
	_, err = b.db.Exec(ctx, `UPDATE submissions SET source_form_id = $2 WHERE event_id = $1`, b.event, form.Data.CreateForm.ID)
	require.NoError(t, err)
	for start := 0; start < proposals; start += 100 {
		decision := "accept"
		if start == 200 {
			decision = "decline"
		}
		r, err := b.api.gql(ctx, `mutation($e: ID!, $in: DecideSubmissionsInput!) { decideSubmissions(eventId: $e, input: $in) { createdEmails } }`,
			map[string]any{"e": b.event, "in": map[string]any{"submissionIds": ids[start : start+100], "decision": decision}})
		require.NoError(t, err)
		require.Contains(t, string(r.Body), `"createdEmails":0`, "deciding sends nothing")
	}

	// Announce each proposal in its own request; the stopAfter-th acknowledgement kills the server.
	const informDoc = `mutation($e: ID!, $in: InformSubmissionsInput!) { informSubmissions(eventId: $e, input: $in) { __typename } }`
	outcome := make([]int, proposals)
	var acks atomic.Int64
	var stopping atomic.Bool
	send := func(indexes []int, retry bool) {
		next := make(chan int)
		var wg sync.WaitGroup
		for range crashClients {
			wg.Go(func() {
				for i := range next {
					if stopping.Load() {
						continue
					}
					r, err := b.api.gql(ctx, informDoc, map[string]any{"e": b.event, "in": map[string]any{"submissionIds": []string{ids[i]}}})
					switch {
					case err != nil:
						outcome[i] = noResponse
					case r.Status == http.StatusOK && !strings.Contains(string(r.Body), `"errors"`):
						outcome[i] = acked
						if n := acks.Add(1); n == stopAfter && !retry {
							stopping.Store(true)
							b.srv.signal(syscall.SIGKILL)
						}
					case retry && strings.Contains(string(r.Body), "informed already"):
						outcome[i] = acked // it committed before the kill
					default:
						outcome[i] = refused
						t.Errorf("inform %s: %d %s", ids[i], r.Status, r.Body)
					}
				}
			})
		}
		for _, i := range indexes {
			next <- i
		}
		close(next)
		wg.Wait()
	}
	all := make([]int, proposals)
	for i := range all {
		all[i] = i
	}
	send(all, false)
	require.True(t, stopping.Load(), "the server was never killed: %d acknowledgements", acks.Load())
	b.srv.wait()
	waitBackendsGone(t, b.db)
	var sending int
	require.NoError(t, b.db.QueryRow(ctx, `SELECT count(*) FROM email_log WHERE status = 'sending'`).Scan(&sending))

	b.srv.restart()
	stopping.Store(false)
	var again []int
	for i, o := range outcome {
		if o != acked {
			again = append(again, i)
		}
	}
	send(again, true)
	waitDelivered(t, b.db, 2*time.Minute)

	// Every proposal is informed, with one decision email per speaker.
	rows, err := b.db.Query(ctx, `SELECT s.id, s.notified_at IS NOT NULL, coalesce(e.id, ''), coalesce(e.contact_id, ''),
		coalesce(e.type, ''), coalesce(e.status, '') FROM submissions s LEFT JOIN email_log e ON e.submission_id = s.id
		WHERE s.event_id = $1`, b.event)
	require.NoError(t, err)
	type row struct {
		sub      string
		informed bool
		email    string
		contact  string
		typ      string
		status   string
	}
	got, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (row, error) {
		var x row
		return x, r.Scan(&x.sub, &x.informed, &x.email, &x.contact, &x.typ, &x.status)
	})
	require.NoError(t, err)
	emails := map[string][]string{}
	var logged []string
	for _, x := range got {
		require.True(t, x.informed, "proposal %s not informed", x.sub)
		if x.email != "" {
			require.Contains(t, []string{"accepted", "declined"}, x.typ)
			require.Equal(t, "sent", x.status)
			emails[x.sub] = append(emails[x.sub], x.contact)
			logged = append(logged, x.email)
		}
	}
	for _, id := range ids {
		require.Equal(t, slices.Sorted(slices.Values(speak[id])), slices.Sorted(slices.Values(emails[id])),
			"proposal %s: one decision email per speaker", id)
	}
	delivered, _ := deliveries(t, b.sink)
	for _, id := range logged {
		require.Positive(t, delivered[id], "email %s was never delivered", id)
	}
	duplicateIDs, extra := duplicates(delivered)
	t.Logf("%d proposals, %d acknowledged before the kill, %d sent again after it; %d decision emails, %d deliveries "+
		"(%d Message-IDs duplicated, %d extra copies); %d emails were sending at the kill",
		proposals, stopAfter, len(again), len(logged), b.sink.Count(), duplicateIDs, extra, sending)
	require.LessOrEqual(t, extra, sending, "only emails left sending at the kill may arrive twice")
	require.LessOrEqual(t, extra, jobs.MaxUnrecorded)
}
