package operation

import (
	"context"
	"strings"
	"time"

	"github.com/podium/podium/graph/model"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/emaillog"
	"github.com/podium/podium/ent/event"
	"github.com/podium/podium/ent/organizationinvitation"
	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/graph/apperr"
	"github.com/podium/podium/graph/email"
)

// invitationLifetime is how long an organization invitation may be accepted: long enough for a
// holiday, short enough that a forgotten invitation does not open the organization years later.
const invitationLifetime = 7 * 24 * time.Hour

// InviteOrganizationMember records an invitation to the caller's organization and emails it.
// The person accepts it by signing in with the address (access.People.FollowLink). An
// invitation to the same address replaces a pending one, so the newest role wins.
func (r *Service) InviteOrganizationMember(ctx context.Context, in model.InviteOrganizationMemberInput) (*ent.OrganizationInvitation, error) {
	return inTx(ctx, r, func(ctx context.Context) (*ent.OrganizationInvitation, error) {
		v, err := access.Viewer(ctx)
		if err != nil {
			return nil, err
		}
		addr := access.NormalizeEmail(in.Email)
		if !strings.Contains(addr, "@") {
			return nil, apperr.Invalid("Enter an email address")
		}
		role := organizationinvitation.Role(in.Role)
		if err := organizationinvitation.RoleValidator(role); err != nil {
			return nil, apperr.Invalid("role must be owner, admin or member")
		}
		if err := access.MayInvite(ctx, in.Role); err != nil {
			return nil, err
		}
		c := r.ClientOf(ctx)
		ev, err := c.Event.Query().Where(event.OrganizationID(v.OrganizationID)).Order(ent.Desc(event.FieldCreatedAt)).First(ctx)
		if ent.IsNotFound(err) {
			return nil, apperr.Conflict(apperr.CodeConflict, "Create an event first: invitation emails are logged under the organization's newest event")
		}
		if err != nil {
			return nil, err
		}
		if _, err := c.OrganizationInvitation.Update().
			Where(organizationinvitation.EmailEqualFold(addr), organizationinvitation.StatusEQ(organizationinvitation.StatusPending)).
			SetStatus(organizationinvitation.StatusCanceled).Save(ctx); err != nil {
			return nil, err
		}
		inv, err := c.OrganizationInvitation.Create().SetOrganizationID(v.OrganizationID).SetEmail(addr).
			SetRole(role).SetExpiresAt(time.Now().Add(invitationLifetime)).Save(ctx)
		if err != nil {
			return nil, err
		}
		_, err = r.Outbox.Queue(ctx, email.Email{EventID: ev.ID, Type: emaillog.TypeCustom, To: addr,
			Template: email.OrganizationInvitation,
			Data: email.Data{EventName: ev.Name, FirstName: strings.SplitN(addr, "@", 2)[0], RoundName: in.Role,
				Path: "/auth/signin?next=/me"}})
		if err != nil {
			return nil, err
		}
		return inv, nil
	})
}
