package rest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/podium/podium/ent/pgtest"
	"github.com/podium/podium/ent/schema/viewer"
)

// TestMCPPreviewSkipsAfterCommit: a write whose handler goes on after its commit (afterCommit)
// does not go on in a preview, whose transaction is rolled back: runWrite answers what it
// recorded, and the continuation never runs.
func TestMCPPreviewSkipsAfterCommit(t *testing.T) {
	t.Parallel()
	a := &API{db: pgtest.New(t)}
	ran := 0
	rt := &route{method: http.MethodPost, path: "/later", operationID: "later", status: http.StatusOK,
		handle: func(*API, context.Context, *request) (any, error) {
			return afterCommit{recorded: map[string]string{"status": "queued"}, then: func(context.Context) (any, error) {
				ran++
				return map[string]string{"status": "done"}, nil
			}}, nil
		}}
	write := func(ctx context.Context) *response {
		q := &request{Request: httptest.NewRequest(http.MethodPost, "/api/v1/later", nil).WithContext(ctx), route: rt}
		res, _, err := a.runWrite(q)
		require.NoError(t, err)
		return res
	}
	ctx := viewer.WithOrganization(context.Background(), "org_preview")

	require.JSONEq(t, `{"status":"done"}`, string(write(ctx).body))
	require.Equal(t, 1, ran)

	ctx = context.WithValue(ctx, previewKey{}, true)
	err := a.db.InTx(ctx, func(ctx context.Context) error {
		require.JSONEq(t, `{"status":"queued"}`, string(write(ctx).body))
		return errPreview
	})
	require.ErrorIs(t, err, errPreview)
	require.Equal(t, 1, ran)
}
