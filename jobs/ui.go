package jobs

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"riverqueue.com/riverui"
)

// UIPrefix is where River UI is served.
const UIPrefix = "/riverui"

// NewUI returns River UI for operators, serving under UIPrefix: queued, running, failed and
// completed jobs, with retry and cancel. It shows every organization's jobs, so it is for
// operators only: the caller serves it on the operator listener (rest.NewOperatorHandler), never
// behind an organization's API key. It runs until ctx ends.
func NewUI(ctx context.Context, client *river.Client[pgx.Tx], log *slog.Logger) (http.Handler, error) {
	h, err := riverui.NewHandler(&riverui.HandlerOpts{
		Endpoints: riverui.NewEndpoints(client, nil),
		Logger:    log,
		Prefix:    UIPrefix,
		// Job args hold only ids, but operators opt in to seeing them.
		JobListHideArgsByDefault: true,
	})
	if err != nil {
		return nil, fmt.Errorf("jobs: river ui: %w", err)
	}
	if err := h.Start(ctx); err != nil {
		return nil, fmt.Errorf("jobs: river ui: %w", err)
	}
	return h, nil
}
