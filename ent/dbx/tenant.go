package dbx

import (
	"context"
	"fmt"

	"entgo.io/ent"
	"entgo.io/ent/dialect/sql"

	"github.com/podium/podium/ent/intercept"
	"github.com/podium/podium/ent/schema"
	"github.com/podium/podium/ent/schema/viewer"
)

// tenantColumns names the tenant types of the schema and the column holding each one's
// organization (see schema.TenantColumns).
var tenantColumns = schema.TenantColumns()

// tenantInterceptor filters every query of a tenant type to the organization of its context. A
// context without one fails with viewer.ErrNoScope; a context marked viewer.System is not
// filtered.
func tenantInterceptor() ent.Interceptor {
	return ent.TraverseFunc(func(ctx context.Context, q ent.Query) error {
		w, err := intercept.NewQuery(q)
		if err != nil {
			return fmt.Errorf("dbx: tenant filter: %w", err)
		}
		column, ok := tenantColumns[w.Type()]
		if !ok || viewer.IsSystem(ctx) {
			return nil
		}
		org := viewer.OrganizationID(ctx)
		if org == "" {
			return fmt.Errorf("dbx: query of %s: %w", w.Type(), viewer.ErrNoScope)
		}
		w.WhereP(sql.FieldEQ(column, org))
		return nil
	})
}

// organizationOnCreate gives a created row of a tenant type the organization of its context when
// the creator left organization_id unset, as operations do: they act for the viewer.
func organizationOnCreate() ent.Hook {
	return func(next ent.Mutator) ent.Mutator {
		return ent.MutateFunc(func(ctx context.Context, m ent.Mutation) (ent.Value, error) {
			column, ok := tenantColumns[m.Type()]
			org := viewer.OrganizationID(ctx)
			if !ok || column == "id" || !m.Op().Is(ent.OpCreate) || org == "" {
				return next.Mutate(ctx, m)
			}
			if _, set := m.Field(column); !set {
				if err := m.SetField(column, org); err != nil {
					return nil, fmt.Errorf("dbx: organization of a new %s: %w", m.Type(), err)
				}
			}
			return next.Mutate(ctx, m)
		})
	}
}

// tenantHook scopes every write of a tenant type to the organization of its context: updates and
// deletes only reach its rows, and creates fail when they name another organization (or, for an
// organization, at all). A context without an organization fails with viewer.ErrNoScope; one
// marked viewer.System writes as told, and its creates must set organization_id themselves.
func tenantHook() ent.Hook {
	return func(next ent.Mutator) ent.Mutator {
		return ent.MutateFunc(func(ctx context.Context, m ent.Mutation) (ent.Value, error) {
			column, ok := tenantColumns[m.Type()]
			if !ok || viewer.IsSystem(ctx) {
				return next.Mutate(ctx, m)
			}
			org := viewer.OrganizationID(ctx)
			if org == "" {
				return nil, fmt.Errorf("dbx: %s of %s: %w", m.Op(), m.Type(), viewer.ErrNoScope)
			}
			if m.Op().Is(ent.OpCreate) {
				if column == "id" {
					return nil, fmt.Errorf("dbx: creating an organization is system work: %w", viewer.ErrNoScope)
				}
				if v, set := m.Field(column); set && v != org {
					return nil, fmt.Errorf("dbx: %s created for organization %v from a context of %s", m.Type(), v, org)
				}
				return next.Mutate(ctx, m)
			}
			w, ok := m.(interface{ WhereP(...func(*sql.Selector)) })
			if !ok {
				return nil, fmt.Errorf("dbx: tenant hook: %T has no WhereP", m)
			}
			w.WhereP(sql.FieldEQ(column, org))
			return next.Mutate(ctx, m)
		})
	}
}
