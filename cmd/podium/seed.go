package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/podium/podium/ent/dbx"
	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/ent/seed"
	"github.com/podium/podium/graph"
	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/graph/demo"
	"github.com/podium/podium/graph/email"
	"github.com/podium/podium/jobs"
)

func seedCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "seed", Short: "Load data sets into the database"}
	cmd.AddCommand(seedDemoCommand(), seedBenchCommand())
	return cmd
}

func seedDemoCommand() *cobra.Command {
	var org string
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Load a demo event to click through, and print a key for it",
		Long: "Load a demo event — speakers, proposals in every state, sessions with their readiness, a " +
			"published agenda, a review round with results, speaker resources — through the same " +
			"operations the API runs. Prints the event's id, then a new API key alone on the last line. " +
			"Its emails (portal invitations, decisions, reviewer invitations) go to example.com addresses.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withMigratedDB(cmd.Context(), func(ctx context.Context, db *dbx.DB) error {
				cfg := loadConfig()
				river, err := jobs.NewClient(db, jobs.Config{Log: newLogger(io.Discard)})
				if err != nil {
					return err
				}
				res, err := demo.Load(ctx, db, graph.NewResolver(db, &email.Outbox{Jobs: river, PublicURL: cfg.PublicURL}), org)
				if err != nil {
					return err
				}
				out := cmd.OutOrStdout()
				fmt.Fprintf(out, "Loaded the demo event %s for %q.\n", res.EventID, org)
				fmt.Fprintf(out, "Try: curl -H \"Authorization: Bearer $KEY\" %s/api/v1/events/%s/sessions\n", cfg.PublicURL, res.EventID)
				fmt.Fprintf(out, "EVENT=%s\n", res.EventID)
				fmt.Fprintln(out, res.Key)
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&org, "org", "Demo Organization", "organization name (created when new)")
	return cmd
}

func seedBenchCommand() *cobra.Command {
	var org string
	var opts seed.BenchOptions
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Load the benchmark data set: a large session board and a fully reviewed round",
		Long: "Load two events for benchmarks, with bulk inserts: a session board (accepted sessions with " +
			"speakers, tracks, tasks and deliverables) and a review round whose every assignment is answered. " +
			"Prints the events' and round's ids as NAME=value lines, then a new API key for the organization " +
			"alone on the last line.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withMigratedDB(cmd.Context(), func(ctx context.Context, db *dbx.DB) error {
				start := time.Now()
				var key string
				var res seed.BenchResult
				ctx = viewer.System(ctx, "seed bench: bulk inserts for an organization created by name")
				err := db.InTx(ctx, func(ctx context.Context) error {
					tx := dbx.TxFromContext(ctx)
					k, rec, err := access.CreateKey(ctx, tx.Ent(), org, "bench")
					if err != nil {
						return err
					}
					key, opts.OrganizationID = k, rec.OrganizationID
					res, err = seed.Bench(ctx, tx.PGX(), opts)
					return err
				})
				if err != nil {
					return err
				}
				out := cmd.OutOrStdout()
				fmt.Fprintf(out, "Seeded in %.1fs.\n", time.Since(start).Seconds())
				fmt.Fprintf(out, "SESSIONS_EVENT=%s\nREVIEWS_EVENT=%s\nROUND=%s\n", res.SessionsEventID, res.ReviewsEventID, res.RoundID)
				fmt.Fprintln(out, key)
				return nil
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&org, "org", "Bench", "organization name (created when new)")
	f.IntVar(&opts.Sessions, "sessions", 2000, "accepted sessions on the board")
	f.IntVar(&opts.SpeakersPerSession, "speakers-per-session", 3, "speakers of each session")
	f.IntVar(&opts.TracksPerSession, "tracks-per-session", 2, "tracks of each session (at most 8)")
	f.IntVar(&opts.Submissions, "submissions", 500, "submissions in the review round")
	f.IntVar(&opts.Reviewers, "reviewers", 3, "reviewers, each assigned every submission")
	f.IntVar(&opts.Criteria, "criteria", 8, "scorecard criteria (at least 3: the last is text, the one before a dropdown)")
	return cmd
}
