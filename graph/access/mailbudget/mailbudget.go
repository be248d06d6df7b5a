// Package mailbudget bounds the email that anyone can make Podium send to someone else's
// mailbox (docs/people.md): sign-in links, which a stranger asks for by typing an address, and
// the emails a signed-in person's own actions send (a co-speaker named on a proposal).
//
// A budget is a token bucket per key: Burst emails at once, then one every Every. The buckets
// live in PostgreSQL (the table email_budgets), so a budget holds across every Podium process on
// the database: behind a load balancer, N processes still send one address five links, not 5N.
// An address is counted by the mailbox it reaches (Mailbox): "victim+1@…" and "Victim+2@…" draw
// on one budget.
package mailbudget

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/podium/podium/graph/apperr"
)

// Limit is one budget: Burst emails at once, then one every Every.
type Limit struct {
	Burst int
	Every time.Duration
}

// Limits are the budgets Podium applies. The zero value of a Limit turns it off.
type Limits struct {
	// Address bounds the sign-in links one mailbox receives.
	Address Limit
	// PersonDay bounds every email one mailbox can cause in a day: the sign-in links sent to it
	// and the emails its person's own actions send to others.
	PersonDay Limit
	// Client bounds the sign-in requests of one client address (the TCP peer).
	Client Limit
	// Form bounds the sign-in links asked for from one call-for-proposals form, which sends
	// them to addresses Podium does not know.
	Form Limit
	// Organization bounds the sign-in links sent for one organization's events.
	Organization Limit
	// Global bounds the sign-in links of the whole server.
	Global Limit
}

// Default are the limits of docs/people.md. A person needs a few links a quarter hour; a call
// for proposals on its last day gets a few hundred newcomers an hour.
var Default = Limits{
	Address:      Limit{Burst: 5, Every: 3 * time.Minute},
	PersonDay:    Limit{Burst: 30, Every: 24 * time.Hour / 30},
	Client:       Limit{Burst: 20, Every: 6 * time.Second},
	Form:         Limit{Burst: 300, Every: 6 * time.Second},
	Organization: Limit{Burst: 600, Every: 3 * time.Second},
	Global:       Limit{Burst: 2000, Every: time.Second},
}

// Charge is n emails drawn on the budget Limit of key.
type Charge struct {
	Key   string
	Limit Limit
	N     int
}

// Budgets draws on the buckets of Limits in PostgreSQL.
type Budgets struct {
	Pool   *pgxpool.Pool
	Limits Limits
}

// New returns the budgets of limits on pool.
func New(pool *pgxpool.Pool, limits Limits) *Budgets { return &Budgets{Pool: pool, Limits: limits} }

// Mailbox is the mailbox an address reaches, as budgets count it: lower-cased and trimmed,
// without a plus tag ("ada+cfp@…" reaches ada@…), and, at Gmail (gmail.com, googlemail.com),
// without dots in the local part, which Gmail ignores. Other providers that ignore dots are not
// folded: at worst their users get a few more links, never fewer. An address without "@" is
// returned lower-cased.
func Mailbox(addr string) string {
	addr = strings.ToLower(strings.TrimSpace(addr))
	local, domain, ok := strings.Cut(addr, "@")
	if !ok {
		return addr
	}
	if plus := strings.IndexByte(local, '+'); plus > 0 {
		local = local[:plus]
	}
	if domain == "gmail.com" || domain == "googlemail.com" {
		local, domain = strings.ReplaceAll(local, ".", ""), "gmail.com"
	}
	return local + "@" + domain
}

// key names a bucket; what a stranger typed is hashed, so the table holds no address.
func key(kind, value string) string {
	sum := sha256.Sum256([]byte(value))
	return kind + ":" + hex.EncodeToString(sum[:16])
}

// The charges of each budget.
func (b *Budgets) address(addr string) Charge {
	return Charge{Key: key("address", Mailbox(addr)), Limit: b.Limits.Address, N: 1}
}

func (b *Budgets) person(addr string, n int) Charge {
	return Charge{Key: key("person-day", Mailbox(addr)), Limit: b.Limits.PersonDay, N: n}
}

// SignIn draws a sign-in link to addr, asked for by client, from the call-for-proposals form
// formID of organization org when given ("" for a plain sign-in): the address's budget, its
// person's daily budget, the client's, the form's, the organization's and the server's. Either
// every budget has room and each is drawn on, or none is and the refusal says how long to wait.
func (b *Budgets) SignIn(ctx context.Context, addr, client, formID, org string) error {
	charges := []Charge{b.address(addr), b.person(addr, 1),
		{Key: key("client", client), Limit: b.Limits.Client, N: 1},
		{Key: "global", Limit: b.Limits.Global, N: 1}}
	if formID != "" {
		charges = append(charges, Charge{Key: "form:" + formID, Limit: b.Limits.Form, N: 1})
	}
	if org != "" {
		charges = append(charges, b.Organization(org))
	}
	return b.Take(ctx, charges...)
}

// Organization is one sign-in link sent for an event of the organization org.
func (b *Budgets) Organization(org string) Charge {
	return Charge{Key: "organization:" + org, Limit: b.Limits.Organization, N: 1}
}

// ChargePerson draws n emails that the person of the address addr causes by their own action
// (naming co-speakers on a proposal, say) from that person's daily budget, which their sign-in
// links share. Call it before queueing the emails; a refusal is apperr's rate_limited, with the
// wait in its message, and nothing is drawn.
func (b *Budgets) ChargePerson(ctx context.Context, addr string, n int) error {
	if n <= 0 {
		return nil
	}
	return b.Take(ctx, b.person(addr, n))
}

// overBudget is the error of a refusal: apperr's rate_limited, naming the wait.
func overBudget(wait time.Duration) *apperr.Error {
	return apperr.New(http.StatusTooManyRequests, apperr.CodeRateLimited,
		"Too many emails asked for: try again in "+Wait(wait))
}

// RetryAfter is the wait of a refusal of Take, in whole seconds for a Retry-After header, or 0
// for another error.
func RetryAfter(err error) int {
	var r *refusal
	if !errors.As(err, &r) {
		return 0
	}
	return max(int(math.Ceil(r.wait.Seconds())), 1)
}

// refusal is Take's answer when a budget has no room: apperr's rate_limited, and the wait.
type refusal struct {
	err  *apperr.Error
	wait time.Duration
}

func (r *refusal) Error() string { return r.err.Error() }

// Unwrap lets apperr.As find the error of the vocabulary.
func (r *refusal) Unwrap() error { return r.err }

// Wait says a wait in words, rounded up: "20 seconds", "3 minutes", "2 hours".
func Wait(d time.Duration) string {
	switch {
	case d <= time.Minute:
		s := max(int(math.Ceil(d.Seconds())), 1)
		return plural(s, "second")
	case d <= 2*time.Hour:
		return plural(int(math.Ceil(d.Minutes())), "minute")
	default:
		return plural(int(math.Ceil(d.Hours())), "hour")
	}
}

func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return strconv.Itoa(n) + " " + unit + "s"
}

// ensureSQL makes the rows of the keys exist, in key order so that two requests sharing keys
// cannot deadlock. A new row starts full (tat = now). It is a statement of its own, before
// lockSQL: a row another draw inserted and has not committed makes this one wait for that commit,
// and the next statement's snapshot then holds the row as that draw left it. (In one statement,
// the SELECT would not see a row committed while the INSERT waited, and would take it as full.)
const ensureSQL = `INSERT INTO email_budgets (key, tat) SELECT k, now() FROM unnest($1::text[]) AS k ORDER BY k
ON CONFLICT (key) DO NOTHING`

// lockSQL locks the rows of the keys, in key order.
const lockSQL = `SELECT key FROM email_budgets WHERE key = ANY($1) ORDER BY key FOR UPDATE`

// aheadSQL returns how far each bucket's theoretical arrival time (GCRA, as in rest/limit.go) is
// ahead of the database's clock, once lockSQL holds the rows: a statement of its own, on
// clock_timestamp(), because now() is the transaction's start and lockSQL's own expressions may
// be computed before its wait. A draw that waited for another's lock would otherwise count that
// wait as spent and be refused for it (a 1-second refusal where the bucket had room).
const aheadSQL = `SELECT key, greatest(extract(epoch FROM tat - clock_timestamp()), 0)::float8 FROM email_budgets
WHERE key = ANY($1)`

// spendSQL moves the buckets' theoretical arrival times by what was drawn, and forgets a few
// buckets that have been full for a day (they hold nobody back), skipping any another draw holds:
// the table keeps only the budgets in use, with no job of its own.
const spendSQL = `WITH spent AS (
  UPDATE email_budgets AS b SET tat = greatest(b.tat, clock_timestamp()) + make_interval(secs => v.secs)
  FROM unnest($1::text[], $2::float8[]) AS v(key, secs) WHERE b.key = v.key RETURNING 1),
pruned AS (
  DELETE FROM email_budgets WHERE key IN (SELECT key FROM email_budgets
    WHERE tat < now() - interval '1 day' AND key <> ALL($1) LIMIT 100 FOR UPDATE SKIP LOCKED) RETURNING 1)
SELECT (SELECT count(*) FROM spent), (SELECT count(*) FROM pruned)`

// Take draws every charge or none: when one budget has no room, nothing is drawn and the refusal
// (apperr's rate_limited) says how long until all of them have room. Charges of a turned-off
// Limit are skipped. It runs in a transaction of its own, apart from the caller's, so that a
// request rolled back still spent what it sent, and a budget row is locked only for the draw.
func (b *Budgets) Take(ctx context.Context, charges ...Charge) error {
	keys, secs := make([]string, 0, len(charges)), make(map[string]float64, len(charges))
	limit := map[string]Limit{}
	for _, c := range charges {
		if c.Limit.Burst <= 0 || c.Limit.Every <= 0 || c.N <= 0 {
			continue
		}
		if _, ok := secs[c.Key]; !ok {
			keys = append(keys, c.Key)
		}
		secs[c.Key] += float64(c.N) * c.Limit.Every.Seconds()
		limit[c.Key] = c.Limit
	}
	if len(keys) == 0 {
		return nil
	}
	ctx = context.WithoutCancel(ctx)
	var wait time.Duration
	err := pgx.BeginFunc(ctx, b.Pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, ensureSQL, keys); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, lockSQL, keys); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, aheadSQL, keys)
		if err != nil {
			return err
		}
		ahead := map[string]float64{}
		for rows.Next() {
			var k string
			var a float64
			if err := rows.Scan(&k, &a); err != nil {
				rows.Close()
				return err
			}
			ahead[k] = a
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, k := range keys {
			l := limit[k]
			room := float64(l.Burst) * l.Every.Seconds()
			if over := ahead[k] + secs[k] - room; over > 1e-6 {
				wait = max(wait, time.Duration(over*float64(time.Second)))
			}
		}
		if wait > 0 {
			return nil
		}
		spent := make([]float64, len(keys))
		for i, k := range keys {
			spent[i] = secs[k]
		}
		_, err = tx.Exec(ctx, spendSQL, keys, spent)
		return err
	})
	if err != nil {
		return fmt.Errorf("mailbudget: %w", err)
	}
	if wait > 0 {
		return &refusal{err: overBudget(wait), wait: wait}
	}
	return nil
}
