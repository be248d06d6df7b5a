package mailbudget_test

import (
	"context"
	"net/http"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/pgtest"
	"github.com/podium/podium/graph/access/mailbudget"
	"github.com/podium/podium/graph/apperr"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

func TestMailbox(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		" Ada@Example.TEST ":          "ada@example.test",
		"ada+cfp@example.test":        "ada@example.test",
		"ada+a+b@example.test":        "ada@example.test",
		"a.d.a@example.test":          "a.d.a@example.test",
		"A.D.A+x@gmail.com":           "ada@gmail.com",
		"ada@googlemail.com":          "ada@gmail.com",
		"+ada@example.test":           "+ada@example.test",
		"not an address":              "not an address",
		"ada.lovelace@GoogleMail.com": "adalovelace@gmail.com",
	} {
		require.Equal(t, want, mailbudget.Mailbox(in), in)
	}
}

func TestWait(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]string{
		500 * time.Millisecond: "1 second", 20 * time.Second: "20 seconds", 61 * time.Second: "2 minutes",
		179 * time.Second: "3 minutes", 3 * time.Hour: "3 hours",
	} {
		require.Equal(t, want, mailbudget.Wait(d), d)
	}
}

// TestTake: a budget allows its burst, refuses beyond it with the wait, draws on every budget
// of a request or none, and holds across two processes sharing the database.
func TestTake(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := context.Background()
	limits := mailbudget.Limits{Address: mailbudget.Limit{Burst: 3, Every: time.Hour},
		PersonDay: mailbudget.Limit{Burst: 10, Every: time.Hour}, Global: mailbudget.Limit{Burst: 100, Every: time.Second},
		Client: mailbudget.Limit{Burst: 100, Every: time.Second}, Form: mailbudget.Limit{Burst: 4, Every: time.Hour},
		Organization: mailbudget.Limit{Burst: 100, Every: time.Second}}
	one, two := mailbudget.New(db.Pool, limits), mailbudget.New(db.Pool, limits)

	t.Run("PlusTagsShareOneBudgetAcrossProcesses", func(t *testing.T) {
		var wg sync.WaitGroup
		errs := make(chan error, 10)
		for i := range 10 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				b := one
				if i%2 == 1 {
					b = two
				}
				errs <- b.SignIn(ctx, "ada+"+string(rune('a'+i))+"@example.test", "client", "", "")
			}()
		}
		wg.Wait()
		close(errs)
		allowed := 0
		for err := range errs {
			if err == nil {
				allowed++
				continue
			}
			e, ok := apperr.As(err)
			require.True(t, ok, err)
			require.Equal(t, http.StatusTooManyRequests, e.Status)
			require.Equal(t, apperr.CodeRateLimited, e.Code)
			require.Contains(t, e.Message, "minutes")
			require.InDelta(t, 3600, mailbudget.RetryAfter(err), 5)
		}
		require.Equal(t, 3, allowed)
	})

	t.Run("AllOrNothing", func(t *testing.T) {
		// The form allows 4; addresses of their own allow 3 each. Four newcomers get in, the
		// fifth is refused by the form, and its address's budget is left whole.
		for i := range 4 {
			require.NoError(t, one.SignIn(ctx, "new"+string(rune('a'+i))+"@example.test", "c", "form_1", "org_1"))
		}
		require.Error(t, one.SignIn(ctx, "fifth@example.test", "c", "form_1", "org_1"))
		for range 3 {
			require.NoError(t, two.SignIn(ctx, "fifth@example.test", "c", "", ""))
		}
	})

	t.Run("ChargePersonSharesTheDailyBudget", func(t *testing.T) {
		require.NoError(t, one.SignIn(ctx, "grace@example.test", "c", "", ""))
		require.NoError(t, two.ChargePerson(ctx, "Grace+co@example.test", 9))
		err := one.ChargePerson(ctx, "grace@example.test", 1)
		e, ok := apperr.As(err)
		require.True(t, ok, err)
		require.Equal(t, apperr.CodeRateLimited, e.Code)
		require.NoError(t, one.ChargePerson(ctx, "grace@example.test", 0))
	})
}

// TestTakeAfterWaitingForALock: a draw that waits for another's bucket row counts from when it
// holds the row, not from when its transaction began. Here another draw creates the bucket and
// spends two of three while this one waits; counted from its start, the spends looked a second
// later than they were and the third draw was refused for "1 second".
func TestTakeAfterWaitingForALock(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := context.Background()
	b := mailbudget.New(db.Pool, mailbudget.Limits{})
	charge := mailbudget.Charge{Key: "test:lock", Limit: mailbudget.Limit{Burst: 3, Every: time.Hour}, N: 1}

	other, err := db.Pool.Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = other.Rollback(ctx) }()
	_, err = other.Exec(ctx, `INSERT INTO email_budgets (key, tat) VALUES ($1, clock_timestamp())`, charge.Key)
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { done <- b.Take(ctx, charge) }()
	time.Sleep(1200 * time.Millisecond) // the draw waits for the row meanwhile
	_, err = other.Exec(ctx, `UPDATE email_budgets SET tat = clock_timestamp() + interval '2 hours' WHERE key = $1`, charge.Key)
	require.NoError(t, err)
	require.NoError(t, other.Commit(ctx))
	require.NoError(t, <-done, "the third of three is allowed")
	require.Error(t, b.Take(ctx, charge), "the fourth is not")
}
