package operation

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/apikey"
	"github.com/podium/podium/ent/schema/pid"
	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/ent/user"
	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/graph/apiversion"
	"github.com/podium/podium/graph/apperr"
	"github.com/podium/podium/graph/model"
	"github.com/podium/podium/graph/scalar"
)

// API keys managed through the API (docs/rest-api.md §2): owners and admins of the organization
// (access.Rules) and keys holding write (access.KeyRules) list, make, revoke and rotate them. A
// key never gives a key more than it holds: no scope it lacks, no other event than its own. The
// secret is answered once, when a key is made, and is never stored, logged nor readable.

// Rotation overlaps: how long the old key keeps working beside the new one.
const (
	defaultKeyOverlapHours = 24
	maxKeyOverlapHours     = 168
)

// errAPIKeyNotFound answers an id that is not a key the caller may see: another organization's,
// another event's for a key confined to one, or none.
var errAPIKeyNotFound = apperr.NotFound("API key")

// APIKeys lists the organization's keys, newest first; a key confined to one event sees that
// event's keys only.
func (r *Service) APIKeys(ctx context.Context) ([]*model.APIKey, error) {
	v, err := access.Viewer(ctx)
	if err != nil {
		return nil, err
	}
	c := r.ClientOf(ctx)
	q := c.APIKey.Query().Order(ent.Desc(apikey.FieldCreatedAt), ent.Desc(apikey.FieldID))
	if v.APIKeyEventID != "" {
		q = q.Where(apikey.EventID(v.APIKeyEventID))
	}
	keys, err := q.All(ctx)
	if err != nil {
		return nil, err
	}
	return toAPIKeys(ctx, c, keys)
}

// CreateAPIKey makes a key; the answer holds its secret, shown this once.
func (r *Service) CreateAPIKey(ctx context.Context, in model.CreateAPIKeyInput) (*model.APIKeyWithSecret, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.APIKeyWithSecret, error) {
		v, err := access.Viewer(ctx)
		if err != nil {
			return nil, err
		}
		c := r.ClientOf(ctx)
		names := make([]string, len(in.Scopes))
		for i, s := range in.Scopes {
			names[i] = string(s)
		}
		scopes, err := access.ParseScopes(names)
		if err != nil {
			return nil, err
		}
		if err := withinCaller(v, scopes, in.EventID); err != nil {
			return nil, err
		}
		if in.EventID != nil {
			if _, err := access.Event(ctx, c, *in.EventID); err != nil {
				return nil, err
			}
		}
		if in.ExpiresAt != nil && !in.ExpiresAt.After(time.Now()) {
			return nil, apperr.Invalid("expiresAt must be in the future")
		}
		if in.APIVersion != nil && !apiversion.Known(*in.APIVersion) {
			return nil, apperr.Invalid("apiVersion must be one of %s", strings.Join(apiversion.All, ", "))
		}
		return mintAPIKey(ctx, c, v, strings.TrimSpace(in.Name), scopes, in.EventID, in.ExpiresAt, in.APIVersion)
	})
}

// RevokeAPIKey revokes a key from the next request on. Revoking a revoked key changes nothing.
func (r *Service) RevokeAPIKey(ctx context.Context, id string) (*model.APIKey, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.APIKey, error) {
		c := r.ClientOf(ctx)
		k, err := callerAPIKey(ctx, c, id)
		if err != nil {
			return nil, err
		}
		if k.RevokedAt == nil {
			if k, err = k.Update().SetRevokedAt(time.Now()).Save(ctx); err != nil {
				return nil, err
			}
		}
		out, err := toAPIKeys(ctx, c, []*ent.APIKey{k})
		if err != nil {
			return nil, err
		}
		return out[0], nil
	})
}

// RotateAPIKey makes a new key with the old one's name, scopes, event, expiry and version, and ends the
// old one after the overlap (default a day, 0 to 168 hours; 0 ends it at once). The answer holds
// the new key's secret.
func (r *Service) RotateAPIKey(ctx context.Context, id string, in *model.RotateAPIKeyInput) (*model.APIKeyWithSecret, error) {
	hours := defaultKeyOverlapHours
	if in != nil && in.OverlapHours != nil {
		hours = *in.OverlapHours
	}
	if hours < 0 || hours > maxKeyOverlapHours {
		return nil, apperr.Invalid("overlapHours must be between 0 and %d", maxKeyOverlapHours)
	}
	return inTx(ctx, r, func(ctx context.Context) (*model.APIKeyWithSecret, error) {
		v, err := access.Viewer(ctx)
		if err != nil {
			return nil, err
		}
		c := r.ClientOf(ctx)
		k, err := callerAPIKey(ctx, c, id)
		if err != nil {
			return nil, err
		}
		now := time.Now()
		switch {
		case k.RevokedAt != nil:
			return nil, apperr.Invalid("This key is revoked: make a new one instead")
		case k.ExpiresAt != nil && !k.ExpiresAt.After(now):
			return nil, apperr.Invalid("This key has expired: make a new one instead")
		}
		if end := now.Add(time.Duration(hours) * time.Hour); k.ExpiresAt == nil || end.Before(*k.ExpiresAt) {
			if err := k.Update().SetExpiresAt(end).Exec(ctx); err != nil {
				return nil, err
			}
		}
		return mintAPIKey(ctx, c, v, k.Name, k.Scopes, k.EventID, k.ExpiresAt, k.APIVersion)
	})
}

// callerAPIKey is the key id of the caller's organization, locked for the change, when the
// caller may change it: a key confined to one event sees that event's keys only, and a key
// changes no key holding a scope it lacks.
func callerAPIKey(ctx context.Context, c *ent.Client, id string) (*ent.APIKey, error) {
	v, err := access.Viewer(ctx)
	if err != nil {
		return nil, err
	}
	if !pid.Plausible(id) {
		return nil, errAPIKeyNotFound
	}
	q := c.APIKey.Query().Where(apikey.ID(id), apikey.OrganizationID(v.OrganizationID))
	if v.APIKeyEventID != "" {
		q = q.Where(apikey.EventID(v.APIKeyEventID))
	}
	k, err := q.ForUpdate().Only(ctx)
	if ent.IsNotFound(err) {
		return nil, errAPIKeyNotFound
	}
	if err != nil {
		return nil, err
	}
	if err := withinCaller(v, k.Scopes, k.EventID); err != nil {
		return nil, err
	}
	return k, nil
}

// withinCaller refuses a key the caller may not make or change: for a calling key, one with a
// scope it lacks (insufficient_scope) or, when the caller is confined to one event, one of the
// whole organization (another event is refused by access.Event, as another organization's).
// People are bound by their role alone.
func withinCaller(v *viewer.Viewer, scopes []string, eventID *string) error {
	if v.APIKeyID == "" {
		return nil
	}
	for _, s := range scopes {
		if !slices.Contains(v.APIKeyScopes, s) {
			return access.InsufficientScope(access.Scope(s))
		}
	}
	if v.APIKeyEventID != "" && eventID == nil {
		return apperr.Forbidden("This API key acts on one event only: the keys it makes and changes are confined to that event")
	}
	if v.APIKeyEventID != "" && *eventID != v.APIKeyEventID {
		return apperr.EventForbidden()
	}
	return nil
}

// mintAPIKey stores a new key of the caller's organization, made by the caller, and answers it
// with its secret.
func mintAPIKey(ctx context.Context, c *ent.Client, v *viewer.Viewer, name string, scopes []string,
	eventID *string, expiresAt *time.Time, version *string) (*model.APIKeyWithSecret, error) {
	secret, prefix, hash := access.NewKey()
	create := c.APIKey.Create().SetOrganizationID(v.OrganizationID).SetName(name).SetPrefix(prefix).SetHash(hash).
		SetScopes(scopes).SetNillableEventID(eventID).SetNillableExpiresAt(expiresAt).SetNillableAPIVersion(version)
	switch {
	case v.APIKeyID != "":
		create.SetCreatedByAPIKeyID(v.APIKeyID)
	case v.Person != nil:
		create.SetCreatedByUserID(v.Person.UserID)
	}
	k, err := create.Save(ctx)
	if err != nil {
		return nil, err
	}
	out, err := toAPIKeys(ctx, c, []*ent.APIKey{k})
	if err != nil {
		return nil, err
	}
	return &model.APIKeyWithSecret{APIKey: out[0], Secret: secret}, nil
}

// toAPIKeys presents keys with their creators, read in two statements for the whole list.
func toAPIKeys(ctx context.Context, c *ent.Client, keys []*ent.APIKey) ([]*model.APIKey, error) {
	var userIDs, keyIDs []string
	for _, k := range keys {
		if k.CreatedByUserID != nil {
			userIDs = append(userIDs, *k.CreatedByUserID)
		}
		if k.CreatedByAPIKeyID != nil {
			keyIDs = append(keyIDs, *k.CreatedByAPIKeyID)
		}
	}
	people, creators := map[string]*ent.User{}, map[string]*ent.APIKey{}
	if len(userIDs) > 0 {
		users, err := c.User.Query().Where(user.IDIn(userIDs...)).All(ctx)
		if err != nil {
			return nil, err
		}
		for _, u := range users {
			people[u.ID] = u
		}
	}
	if len(keyIDs) > 0 {
		ks, err := c.APIKey.Query().Where(apikey.IDIn(keyIDs...)).All(ctx)
		if err != nil {
			return nil, err
		}
		for _, k := range ks {
			creators[k.ID] = k
		}
	}
	out := make([]*model.APIKey, len(keys))
	for i, k := range keys {
		scopes := make([]model.APIKeyScope, len(k.Scopes))
		for j, s := range k.Scopes {
			scopes[j] = model.APIKeyScope(s)
		}
		m := &model.APIKey{ID: k.ID, Name: k.Name, Prefix: k.Prefix, Scopes: scopes, EventID: k.EventID,
			CreatedAt: scalar.At(k.CreatedAt), LastUsedAt: scalar.AtPtr(k.LastUsedAt),
			ExpiresAt: scalar.AtPtr(k.ExpiresAt), RevokedAt: scalar.AtPtr(k.RevokedAt), APIVersion: k.APIVersion}
		if id := k.CreatedByUserID; id != nil {
			m.CreatedBy = &model.APIKeyCreator{Kind: "person", ID: *id, Name: *id}
			if u := people[*id]; u != nil {
				m.CreatedBy.Name = cmpOr(u.Name, u.Email)
			}
		}
		if id := k.CreatedByAPIKeyID; id != nil {
			m.CreatedBy = &model.APIKeyCreator{Kind: "apiKey", ID: *id, Name: *id}
			if ck := creators[*id]; ck != nil {
				m.CreatedBy.Name = ck.Name
			}
		}
		out[i] = m
	}
	return out, nil
}

// cmpOr is the first of a and b that is not blank.
func cmpOr(a, b string) string {
	if strings.TrimSpace(a) != "" {
		return a
	}
	return b
}
