package jobs

import (
	"context"
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// Every job a worker runs is traced (a span per attempt) and counted by kind and outcome. The
// jobs waiting in each state are counted from the database on scrape (see package rest).
var (
	jobRuns = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "podium_river_job_runs_total",
		Help: "Job attempts worked in this process, by kind and outcome (completed, failed, cancelled, snoozed).",
	}, []string{"kind", "outcome"})
	jobDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "podium_river_job_duration_seconds",
		Help:    "How long job attempts take, by kind.",
		Buckets: prometheus.ExponentialBuckets(0.005, 2.5, 12),
	}, []string{"kind"})
)

// Collectors are the jobs' Prometheus metrics, for the server's registry.
func Collectors() []prometheus.Collector { return []prometheus.Collector{jobRuns, jobDuration} }

var tracer = otel.Tracer("github.com/podium/podium/jobs")

// telemetry is River worker middleware that traces and counts job attempts.
type telemetry struct{ river.MiddlewareDefaults }

var _ rivertype.WorkerMiddleware = &telemetry{}

// Work runs the job inside its span.
func (*telemetry) Work(ctx context.Context, job *rivertype.JobRow, doInner func(context.Context) error) error {
	ctx, span := tracer.Start(ctx, "river.job "+job.Kind, trace.WithSpanKind(trace.SpanKindConsumer),
		trace.WithAttributes(attribute.Int64("river.job.id", job.ID), attribute.String("river.job.kind", job.Kind),
			attribute.String("river.job.queue", job.Queue), attribute.Int("river.job.attempt", job.Attempt)))
	defer span.End()
	start := time.Now()
	err := doInner(ctx)
	jobDuration.WithLabelValues(job.Kind).Observe(time.Since(start).Seconds())
	outcome := "completed"
	var cancel *river.JobCancelError
	var snooze *river.JobSnoozeError
	switch {
	case errors.As(err, &cancel):
		outcome = "cancelled"
	case errors.As(err, &snooze):
		outcome = "snoozed"
	case err != nil:
		outcome = "failed"
	}
	if err != nil && outcome != "snoozed" {
		span.RecordError(err)
		span.SetStatus(codes.Error, outcome)
	}
	jobRuns.WithLabelValues(job.Kind, outcome).Inc()
	return err
}
