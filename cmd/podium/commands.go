package main

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/podium/podium/ent/dbx"
	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/graph/access"
)

func rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:           "podium",
		Short:         "Podium runs the speaker side of conferences: a GraphQL and REST server",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(serveCommand(), migrateCommand(), keysCommand(), seedCommand())
	return root
}

func migrateCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "migrate",
		Short: "Apply pending database migrations (Podium's and River's) and exit",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			log := newLogger(os.Stderr)
			_, applied, closeDB, err := openDB(ctx, loadConfig(), log, true)
			if err != nil {
				return err
			}
			defer closeDB()
			fmt.Fprintf(cmd.OutOrStdout(), "Applied %d Podium and %d River migrations.\n", len(applied.Versions), applied.River)
			return nil
		},
	}
}

func keysCommand() *cobra.Command {
	keys := &cobra.Command{Use: "keys", Short: "Manage organization API keys"}

	var org, name, event, version string
	var scopes []string
	create := &cobra.Command{
		Use:   "create --org NAME [--name LABEL] [--scopes read,write,send_mail] [--event EVENT_ID] [--api-version DATE]",
		Short: "Create an API key, and the organization when no organization has that name",
		Long: "Create an API key for the organization named --org, creating the organization when none " +
			"has that name. The key holds every scope on every event unless --scopes or --event narrow it " +
			"(docs/rest-api.md §2). The key is printed alone on the last line; it is shown only this once.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withMigratedDB(cmd.Context(), func(ctx context.Context, db *dbx.DB) error {
				var key string
				ctx = viewer.System(ctx, "keys create: the organization is found or created by name")
				err := db.InTx(ctx, func(ctx context.Context) error {
					var err error
					key, _, err = access.CreateKeyWith(ctx, dbx.TxFromContext(ctx).Ent(), org, name,
						access.KeyOptions{Scopes: scopes, EventID: event, APIVersion: version})
					return err
				})
				if err != nil {
					return err
				}
				out := cmd.OutOrStdout()
				fmt.Fprintf(out, "Created an API key for %q. Keep it secret; it is not shown again:\n", org)
				fmt.Fprintln(out, key)
				return nil
			})
		},
	}
	create.Flags().StringVar(&org, "org", "", "organization name (required)")
	create.Flags().StringVar(&name, "name", "", "a label for the key")
	create.Flags().StringSliceVar(&scopes, "scopes", nil, "what the key may do: read, write, send_mail (default all three)")
	create.Flags().StringVar(&event, "event", "", "confine the key to this event of the organization (default every event)")
	create.Flags().StringVar(&version, "api-version", "", "pin the key's REST requests that name no version (Podium-Version) to this one: 2026-08-12 or 2026-08-21 (default 2026-08-12)")
	_ = create.MarkFlagRequired("org")

	revoke := &cobra.Command{
		Use:   "revoke PREFIX_OR_ID",
		Short: "Revoke an API key; requests made with it are refused from the next one on",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withMigratedDB(cmd.Context(), func(ctx context.Context, db *dbx.DB) error {
				rec, err := access.RevokeKey(ctx, db.Ent, args[0])
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "Revoked key %s (%s).\n", rec.Prefix, rec.Name)
				return nil
			})
		},
	}
	keys.AddCommand(create, revoke)
	return keys
}

// withMigratedDB runs fn on the configured database after applying pending migrations, so that
// key commands work on a database no server has touched yet.
func withMigratedDB(ctx context.Context, fn func(context.Context, *dbx.DB) error) error {
	log := newLogger(os.Stderr)
	db, _, closeDB, err := openDB(ctx, loadConfig(), log, true)
	if err != nil {
		return err
	}
	defer closeDB()
	return fn(ctx, db)
}
