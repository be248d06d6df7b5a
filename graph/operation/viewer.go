package operation

import (
	"context"

	"github.com/podium/podium/graph/model"

	"github.com/podium/podium/graph/access"
)

// ViewerOf presents the caller of ctx (docs/people.md): what the API key or the person is, as
// the access layer decided when the request was authenticated.
func (r *Service) ViewerOf(ctx context.Context) (*model.Viewer, error) {
	v, err := access.Viewer(ctx)
	if err != nil {
		return nil, err
	}
	out := &model.Viewer{Kind: model.ViewerKindAPIKey, Memberships: []*model.ViewerMembership{}, EventRoles: []*model.ViewerEventRole{},
		Contacts: []*model.ViewerContact{}}
	if v.OrganizationID != "" {
		out.OrganizationID = &v.OrganizationID
	}
	p := v.Person
	if p == nil {
		out.APIKeyName = &v.APIKeyName
		return out, nil
	}
	out.Kind, out.Email, out.Name = model.ViewerKindPerson, &p.Email, &p.Name
	for _, m := range p.Memberships {
		out.Memberships = append(out.Memberships, &model.ViewerMembership{OrganizationID: m.OrganizationID, Role: m.Role})
	}
	for _, e := range p.EventRoles {
		out.EventRoles = append(out.EventRoles, &model.ViewerEventRole{EventID: e.EventID, EventMemberID: e.MemberID, Role: e.Role})
	}
	for _, c := range p.Contacts {
		out.Contacts = append(out.Contacts, &model.ViewerContact{EventID: c.EventID, ContactID: c.ContactID})
	}
	return out, nil
}
