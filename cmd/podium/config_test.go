package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/jobs"
)

// PODIUM_WEBHOOK_RETENTION sets how long webhook messages are kept; a value shorter than two days
// would prune messages whose deliveries may still be retried or redelivered, and is refused.
func TestWebhookRetentionVariable(t *testing.T) {
	t.Setenv("PODIUM_WEBHOOK_RETENTION", "")
	w, err := webhookConfig()
	require.NoError(t, err)
	require.Zero(t, w.Retention, "unset: the worker's default, jobs.DefaultWebhookRetention")
	require.Equal(t, 30*24*time.Hour, jobs.DefaultWebhookRetention)

	t.Setenv("PODIUM_WEBHOOK_RETENTION", "2160h")
	w, err = webhookConfig()
	require.NoError(t, err)
	require.Equal(t, 90*24*time.Hour, w.Retention)

	for _, bad := range []string{"a month", "24h", "-720h"} {
		t.Setenv("PODIUM_WEBHOOK_RETENTION", bad)
		_, err = webhookConfig()
		require.ErrorContains(t, err, "PODIUM_WEBHOOK_RETENTION", bad)
	}
}

// The operator listener is on loopback unless said otherwise, "off" turns it off, and serve
// refuses an address other machines reach without PODIUM_OPERATOR_TOKEN.
func TestOperatorVariables(t *testing.T) {
	t.Setenv("PODIUM_OPERATOR_ADDR", "")
	t.Setenv("PODIUM_OPERATOR_TOKEN", "")
	c := loadConfig()
	require.Equal(t, "127.0.0.1:9090", c.OperatorAddr)
	require.Empty(t, c.OperatorToken)

	t.Setenv("PODIUM_OPERATOR_ADDR", "off")
	require.Empty(t, loadConfig().OperatorAddr)

	t.Setenv("PODIUM_OPERATOR_ADDR", "0.0.0.0:9090")
	c = loadConfig()
	c.DatabaseURL = "postgres://127.0.0.1:1/never" // refused before it is dialled
	require.ErrorContains(t, serve(t.Context(), c, false), "PODIUM_OPERATOR_TOKEN")
}

// PODIUM_DB_ORG_CONNS and PODIUM_DB_PERSON_CONNS: unset is dbx's default (0), "off" or a negative
// number turns the bound off (-1), a count is taken as is.
func TestConnectionShareVariables(t *testing.T) {
	for v, want := range map[string]int{"": 0, "0": 0, "junk": 0, "6": 6, "\t3\n": 3, "off": -1, "OFF": -1, "-5": -1} {
		t.Setenv("PODIUM_DB_ORG_CONNS", v)
		t.Setenv("PODIUM_DB_PERSON_CONNS", v)
		c := loadConfig()
		require.Equal(t, want, c.DBOrgConns, "PODIUM_DB_ORG_CONNS=%q", v)
		require.Equal(t, want, c.DBPersonConns, "PODIUM_DB_PERSON_CONNS=%q", v)
	}
}
