package operation

import (
	"context"
	"strings"
	"time"

	"github.com/podium/podium/graph/model"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/organizationcontact"
	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/graph/apperr"
)

// maxContactImportRows bounds an import: 5,000 rows fit the 1 MiB body limit with room for long
// bios, and keep the transaction (and its locks) short.
const maxContactImportRows = 5000

// contactInsertBatch is the rows of one INSERT: PostgreSQL takes at most 65,535 parameters per
// statement, and a contact row has 12.
const contactInsertBatch = 2000

// crmUpdateImportedSQL overwrites the names, title, company and bio of the contacts named in $1
// with the values at the same index of the other arrays, in one statement.
const crmUpdateImportedSQL = `
UPDATE organization_contacts c
SET first_name = v.first_name, last_name = v.last_name, title = v.title, company = v.company, bio = v.bio,
    updated_at = $7
FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[])
     AS v(id, first_name, last_name, title, company, bio)
WHERE c.id = v.id AND c.organization_id = $8`

// ImportContacts imports rows by email in one transaction, in a fixed number of statements
// whatever the number of rows: one read of the known emails, at most three INSERTs, one UPDATE.
// Outcomes follow the rows: an email already known — or seen earlier in the batch — is updated
// (behavior update) or skipped; any other is created. A later row of the same email wins, as if
// the rows were applied one by one. A row that breaks a rule fails the whole import.
func (r *Service) ImportContacts(ctx context.Context, in model.ImportContactsInput) (*model.CrmImportResult, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.CrmImportResult, error) {
		if _, err := access.Viewer(ctx); err != nil {
			return nil, err
		}
		if len(in.Rows) == 0 {
			return nil, apperr.Invalid("Pass at least one row")
		}
		if len(in.Rows) > maxContactImportRows {
			return nil, apperr.Invalid("Import at most %d rows at a time", maxContactImportRows)
		}
		type final struct {
			row   *model.ContactImportRow
			first string
			last  string
		}
		finals := map[string]*final{}
		var order []string
		res := &model.CrmImportResult{Outcomes: make([]*model.CrmImportOutcome, len(in.Rows))}
		for i, row := range in.Rows {
			addr, err := crmEmail(row.Email)
			if err != nil {
				return nil, apperr.Invalid("Row %d: enter a valid email", i+1)
			}
			f := &final{row: row, first: strings.TrimSpace(row.FirstName), last: strings.TrimSpace(row.LastName)}
			if err := checkImportRow(f.first, f.last, addr, row); err != nil {
				return nil, apperr.Invalid("Row %d: %s", i+1, err.Error())
			}
			res.Outcomes[i] = &model.CrmImportOutcome{Email: addr}
			if _, seen := finals[addr]; !seen {
				order = append(order, addr)
				finals[addr] = f
			} else if in.Behavior == model.CrmImportBehaviorUpdate {
				finals[addr] = f
			}
		}
		c := r.ClientOf(ctx)
		known, err := c.OrganizationContact.Query().Where(organizationcontact.EmailIn(order...)).
			Select(organizationcontact.FieldID, organizationcontact.FieldEmail).All(ctx)
		if err != nil {
			return nil, err
		}
		ids := map[string]string{}
		for _, k := range known {
			ids[k.Email] = k.ID
		}
		seen := map[string]bool{}
		for _, o := range res.Outcomes {
			switch {
			case ids[o.Email] == "" && !seen[o.Email]:
				o.Action = model.CrmImportActionCreated
				res.Created++
			case in.Behavior == model.CrmImportBehaviorUpdate:
				o.Action = model.CrmImportActionUpdated
				res.Updated++
			default:
				o.Action = model.CrmImportActionSkipped
				res.Skipped++
			}
			seen[o.Email] = true
		}
		var creates []*ent.OrganizationContactCreate
		var upd [6][]*string
		for _, addr := range order {
			f := finals[addr]
			if id := ids[addr]; id == "" {
				creates = append(creates, c.OrganizationContact.Create().SetEmail(addr).SetFirstName(f.first).
					SetLastName(f.last).SetNillableTitle(f.row.Title).SetNillableCompany(f.row.Company).
					SetNillableBio(f.row.Bio).SetCustom(map[string]any{}))
			} else if in.Behavior == model.CrmImportBehaviorUpdate {
				for i, v := range []*string{&id, &f.first, &f.last, f.row.Title, f.row.Company, f.row.Bio} {
					upd[i] = append(upd[i], v)
				}
			}
		}
		for start := 0; start < len(creates); start += contactInsertBatch {
			end := min(start+contactInsertBatch, len(creates))
			if err := c.OrganizationContact.CreateBulk(creates[start:end]...).Exec(ctx); err != nil {
				return nil, err
			}
		}
		if len(upd[0]) > 0 {
			_, err := r.sql(ctx).Exec(ctx, crmUpdateImportedSQL, upd[0], upd[1], upd[2], upd[3], upd[4], upd[5],
				time.Now(), viewer.OrganizationID(ctx))
			if err != nil {
				return nil, err
			}
		}
		return res, nil
	})
}

// checkImportRow applies the contact's field rules to a row the UPDATE writes without ent.
func checkImportRow(first, last, addr string, row *model.ContactImportRow) error {
	checks := []error{organizationcontact.FirstNameValidator(first), organizationcontact.LastNameValidator(last),
		organizationcontact.EmailValidator(addr)}
	for _, v := range []struct {
		s     *string
		check func(string) error
	}{{row.Title, organizationcontact.TitleValidator}, {row.Company, organizationcontact.CompanyValidator},
		{row.Bio, organizationcontact.BioValidator}} {
		if v.s != nil {
			checks = append(checks, v.check(*v.s))
		}
	}
	for _, err := range checks {
		if err != nil {
			return err
		}
	}
	return nil
}
