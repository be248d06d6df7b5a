package main

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel"
)

// TestTracingExportsOverOTLP points the exporter at a local OTLP/HTTP receiver and requires a
// span to arrive there, protobuf-encoded, when the traces are flushed.
func TestTracingExportsOverOTLP(t *testing.T) {
	var batches atomic.Int32
	var contentType atomic.Value
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.URL.Path == "/v1/traces" && len(body) > 0 {
			batches.Add(1)
			contentType.Store(r.Header.Get("Content-Type"))
		}
		w.WriteHeader(http.StatusOK)
	}))
	defer receiver.Close()

	stop, err := setupTracing(context.Background(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	require.NoError(t, err)
	stop()
	require.Zero(t, batches.Load(), "without OTEL_EXPORTER_OTLP_ENDPOINT nothing is exported")

	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.URL)
	stop, err = setupTracing(context.Background(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	require.NoError(t, err)
	_, span := otel.Tracer("test").Start(context.Background(), "GET /api/v1/events")
	span.End()
	stop()
	require.Equal(t, int32(1), batches.Load())
	require.Equal(t, "application/x-protobuf", contentType.Load())
}
