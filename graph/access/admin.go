package access

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/apikey"
	"github.com/podium/podium/ent/event"
	"github.com/podium/podium/ent/organization"
	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/graph/apiversion"
	"github.com/podium/podium/graph/slug"
)

// CreateKey makes an API key for the organization named orgName, creating the organization when
// no organization has that name. It returns the key — shown once, never stored — and its record.
// client should be a transaction's client so that a failed key leaves no organization behind;
// that transaction must have been opened in a viewer.System context, since finding an
// organization by name spans organizations (the command line and seeds do so).
func CreateKey(ctx context.Context, client *ent.Client, orgName, keyName string) (string, *ent.APIKey, error) {
	return CreateKeyWith(ctx, client, orgName, keyName, KeyOptions{})
}

// KeyOptions narrow a key of the command line; the zero value is a key with every scope on every
// event of the organization.
type KeyOptions struct {
	// Scopes are the key's scopes; empty means all three.
	Scopes []string
	// EventID confines the key to one event of the organization; "" means every event.
	EventID string
	// APIVersion pins the key's REST requests that name no version; "" means the default.
	APIVersion string
}

// CreateKeyWith is CreateKey with options: the key's scopes, event and API version.
func CreateKeyWith(ctx context.Context, client *ent.Client, orgName, keyName string, opts KeyOptions) (string, *ent.APIKey, error) {
	ctx = viewer.System(ctx, "keys create: find or create an organization by name")
	scopes := ScopeNames(Scopes)
	if len(opts.Scopes) > 0 {
		var err error
		if scopes, err = ParseScopes(opts.Scopes); err != nil {
			return "", nil, err
		}
	}
	if opts.APIVersion != "" && !apiversion.Known(opts.APIVersion) {
		return "", nil, fmt.Errorf("access: the API version must be one of %s", strings.Join(apiversion.All, ", "))
	}
	orgName = strings.TrimSpace(orgName)
	if orgName == "" {
		return "", nil, errors.New("access: an organization name is required")
	}
	if strings.TrimSpace(keyName) == "" {
		keyName = "Key created " + time.Now().UTC().Format("2006-01-02 15:04")
	}
	// Commands run at once for one new organization would each create it: the first to take the
	// name's lock (until its transaction ends) creates it, and the others then find it.
	if _, err := client.ExecContext(ctx, "SELECT pg_advisory_xact_lock(hashtext($1))", "podium organization "+orgName); err != nil {
		return "", nil, fmt.Errorf("access: organization lock: %w", err)
	}
	org, err := client.Organization.Query().Where(organization.Name(orgName)).Order(ent.Asc(organization.FieldCreatedAt)).First(ctx)
	if ent.IsNotFound(err) {
		taken := func(s string) bool {
			n, err := client.Organization.Query().Where(organization.Slug(s)).Count(ctx)
			return err != nil || n > 0
		}
		org, err = client.Organization.Create().
			SetName(orgName).
			SetSlug(slug.Unique(slug.Make(orgName, "organization"), taken)).
			Save(ctx)
	}
	if err != nil {
		return "", nil, fmt.Errorf("access: organization: %w", err)
	}
	create := client.APIKey.Create().SetOrganizationID(org.ID).SetScopes(scopes)
	if opts.EventID != "" {
		ev, err := client.Event.Query().Where(event.ID(opts.EventID), event.OrganizationID(org.ID)).Only(ctx)
		if err != nil {
			return "", nil, fmt.Errorf("access: no event %s in organization %q", opts.EventID, orgName)
		}
		create.SetEventID(ev.ID)
	}
	if opts.APIVersion != "" {
		create.SetAPIVersion(opts.APIVersion)
	}
	key, prefix, hash := NewKey()
	rec, err := create.
		SetName(strings.TrimSpace(keyName)).
		SetPrefix(prefix).
		SetHash(hash).
		Save(ctx)
	if err != nil {
		return "", nil, fmt.Errorf("access: key: %w", err)
	}
	return key, rec, nil
}

// ErrKeyNotFound is returned by RevokeKey for an unknown key.
var ErrKeyNotFound = errors.New("no API key has that id or prefix")

// RevokeKey revokes the key with the given id or display prefix (a whole key works too). The
// next request made with it is refused. Revoking a revoked key changes nothing. It is system work
// (the command line): client must not be a transaction opened outside a viewer.System context.
func RevokeKey(ctx context.Context, client *ent.Client, idOrPrefix string) (*ent.APIKey, error) {
	ctx = viewer.System(ctx, "keys revoke: find a key by id or prefix in any organization")
	s := strings.TrimSpace(idOrPrefix)
	if strings.HasPrefix(s, KeyPrefix) && len(s) > displayLen {
		s = s[:displayLen]
	}
	rec, err := client.APIKey.Query().Where(apikey.Or(apikey.ID(s), apikey.Prefix(s))).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, ErrKeyNotFound
	}
	if err != nil {
		return nil, err
	}
	if rec.RevokedAt != nil {
		return rec, nil
	}
	return rec.Update().SetRevokedAt(time.Now()).Save(ctx)
}
