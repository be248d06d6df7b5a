package operation

import (
	"context"
	"encoding/csv"
	"net/mail"
	"slices"
	"strings"
	"time"

	"github.com/podium/podium/graph/model"

	"entgo.io/contrib/entgql"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/contact"
	"github.com/podium/podium/ent/emaillog"
	"github.com/podium/podium/ent/predicate"
	"github.com/podium/podium/ent/schema/pid"
	"github.com/podium/podium/graph/access"
	"github.com/podium/podium/graph/apperr"
	"github.com/podium/podium/graph/email"
	"github.com/podium/podium/graph/scalar"
)

var errSpeakerNotFound = apperr.NotFound("Speaker")

// SpeakerOf loads a contact of the event.
func SpeakerOf(ctx context.Context, c *ent.Client, eventID, id string) (*ent.Contact, error) {
	if !pid.Plausible(id) {
		return nil, errSpeakerNotFound
	}
	ct, err := c.Contact.Query().Where(contact.ID(id), contact.EventID(eventID)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, errSpeakerNotFound
	}
	return ct, err
}

// normalizeEmail trims and lower-cases an address and checks it is one.
func normalizeEmail(s string) (string, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s || a.Name != "" {
		return "", apperr.Invalid("Enter a valid email")
	}
	return s, nil
}

// stampConfirmed sets confirmedAt the first time a speaker reaches confirmed or ready; it is never
// cleared.
func stampConfirmed(ct *ent.Contact, status contact.WorkflowStatus) bool {
	return ct.ConfirmedAt == nil && (status == contact.WorkflowStatusConfirmed || status == contact.WorkflowStatusReady)
}

// SaveSpeaker creates (id null) or updates a speaker (docs/rest-api.md: POST E/speakers).
func (r *Service) SaveSpeaker(ctx context.Context, eventID string, in model.SaveSpeakerInput) (*ent.Contact, error) {
	return inTx(ctx, r, func(ctx context.Context) (*ent.Contact, error) {
		c := r.ClientOf(ctx)
		ev, err := access.Event(ctx, c, eventID)
		if err != nil {
			return nil, err
		}
		first, last := strings.TrimSpace(in.FirstName), strings.TrimSpace(in.LastName)
		if first == "" || last == "" {
			return nil, apperr.Invalid("Enter the speaker's first and last name")
		}
		addr, err := normalizeEmail(in.Email)
		if err != nil {
			return nil, err
		}
		var existing *ent.Contact
		if in.ID != nil {
			if existing, err = SpeakerOf(ctx, c, ev.ID, *in.ID); err != nil {
				return nil, err
			}
		}
		dup := c.Contact.Query().Where(contact.EventID(ev.ID), contact.Email(addr))
		if existing != nil {
			dup = dup.Where(contact.IDNEQ(existing.ID))
		}
		taken, err := dup.Exist(ctx)
		if err != nil {
			return nil, err
		}
		if taken {
			return nil, apperr.Invalid("A speaker with this email already exists")
		}
		custom := map[string]any{}
		if existing != nil && existing.Custom != nil {
			for k, v := range existing.Custom {
				custom[k] = v
			}
		}
		if in.TravelLogistics != nil {
			custom["travelLogistics"] = *in.TravelLogistics
		} else {
			delete(custom, "travelLogistics")
		}
		if existing == nil {
			create := c.Contact.Create().SetEventID(ev.ID).SetFirstName(first).SetLastName(last).SetEmail(addr).
				SetNillableTitle(in.Title).SetNillableCompany(in.Company).SetNillableBio(in.Bio).
				SetNillableLinkedinURL(in.LinkedinURL).SetNillableTwitterURL(in.TwitterURL).
				SetNillableWebsiteURL(in.WebsiteURL).SetDietaryRequirements(in.DietaryRequirements).
				SetNillableTshirtSize(in.TshirtSize).SetCustom(custom).SetWorkflowStatus(in.WorkflowStatus)
			if in.WorkflowStatus == contact.WorkflowStatusConfirmed || in.WorkflowStatus == contact.WorkflowStatusReady {
				create.SetConfirmedAt(time.Now())
			}
			return create.Save(ctx)
		}
		u := existing.Update().SetFirstName(first).SetLastName(last).SetEmail(addr).
			SetDietaryRequirements(in.DietaryRequirements).SetCustom(custom).SetWorkflowStatus(in.WorkflowStatus)
		setOrClear(omit(in.Title), u.SetTitle, u.ClearTitle)
		setOrClear(omit(in.Company), u.SetCompany, u.ClearCompany)
		setOrClear(omit(in.Bio), u.SetBio, u.ClearBio)
		setOrClear(omit(in.LinkedinURL), u.SetLinkedinURL, u.ClearLinkedinURL)
		setOrClear(omit(in.TwitterURL), u.SetTwitterURL, u.ClearTwitterURL)
		setOrClear(omit(in.WebsiteURL), u.SetWebsiteURL, u.ClearWebsiteURL)
		if in.TshirtSize == nil {
			u.ClearTshirtSize()
		} else {
			u.SetTshirtSize(*in.TshirtSize)
		}
		if stampConfirmed(existing, in.WorkflowStatus) {
			u.SetConfirmedAt(time.Now())
		}
		updated, err := u.Save(ctx)
		if err != nil {
			return nil, err
		}
		return approveOrganizerEdits(ctx, existing, updated)
	})
}

// SetSpeakerWorkflow sets a speaker's workflow status: any value from any value; confirmed and
// ready stamp confirmedAt when it is null.
func (r *Service) SetSpeakerWorkflow(ctx context.Context, eventID, contactID string, in model.SetSpeakerWorkflowInput) (*ent.Contact, error) {
	return inTx(ctx, r, func(ctx context.Context) (*ent.Contact, error) {
		c := r.ClientOf(ctx)
		ev, err := access.Event(ctx, c, eventID)
		if err != nil {
			return nil, err
		}
		ct, err := SpeakerOf(ctx, c, ev.ID, contactID)
		if err != nil {
			return nil, err
		}
		u := ct.Update().SetWorkflowStatus(in.Status)
		if stampConfirmed(ct, in.Status) {
			u.SetConfirmedAt(time.Now())
		}
		if err := r.emit(ctx, speakerHook(stampConfirmed(ct, in.Status)), hookData{"eventId": ev.ID, "speakerId": ct.ID, "workflowStatus": in.Status}); err != nil {
			return nil, err
		}
		if answersConfirmation(ct, in.Status) {
			if err := r.confirmationChanged(ctx, ct); err != nil {
				return nil, err
			}
		}
		return u.Save(ctx)
	})
}

// ImportSpeakers creates and updates speakers row by row, matched by email within the event.
// create skips an email already known, update skips an unknown one; an update never blanks a
// field with an empty cell.
func (r *Service) ImportSpeakers(ctx context.Context, eventID string, in model.ImportSpeakersInput) (*model.ImportSpeakersResult, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.ImportSpeakersResult, error) {
		c := r.ClientOf(ctx)
		ev, err := access.Event(ctx, c, eventID)
		if err != nil {
			return nil, err
		}
		if len(in.Rows) == 0 {
			return nil, apperr.Invalid("Pass at least one row")
		}
		// The last row of an email wins, as in a spreadsheet edited top to bottom.
		byEmail := map[string]*model.SpeakerImportRow{}
		var order []string
		for _, row := range in.Rows {
			addr, err := normalizeEmail(row.Email)
			if strings.TrimSpace(row.FirstName) == "" || strings.TrimSpace(row.LastName) == "" || err != nil {
				return nil, apperr.Invalid("Every row needs a first name, last name, and email")
			}
			if _, seen := byEmail[addr]; !seen {
				order = append(order, addr)
			}
			byEmail[addr] = row
		}
		existing, err := c.Contact.Query().Where(contact.EventID(ev.ID), contact.EmailIn(order...)).All(ctx)
		if err != nil {
			return nil, err
		}
		known := map[string]*ent.Contact{}
		for _, ct := range existing {
			known[ct.Email] = ct
		}
		res := &model.ImportSpeakersResult{}
		for _, addr := range order {
			row, ct := byEmail[addr], known[addr]
			switch {
			case row.Action == model.SpeakerImportActionSkip,
				row.Action == model.SpeakerImportActionCreate && ct != nil,
				row.Action == model.SpeakerImportActionUpdate && ct == nil:
				res.Skipped++
			case ct == nil:
				_, err := c.Contact.Create().SetEventID(ev.ID).SetEmail(addr).
					SetFirstName(strings.TrimSpace(row.FirstName)).SetLastName(strings.TrimSpace(row.LastName)).
					SetNillableTitle(blankNil(row.Title)).SetNillableCompany(blankNil(row.Company)).
					SetNillableBio(blankNil(row.Bio)).SetDietaryRequirements(dietary(row.Dietary)).
					SetNillableTshirtSize(tshirt(row.Tshirt)).SetNillableLinkedinURL(blankNil(row.Linkedin)).
					SetNillableTwitterURL(blankNil(row.Twitter)).SetNillableFacebookURL(blankNil(row.Facebook)).
					SetNillableWebsiteURL(blankNil(row.Website)).SetNillablePhone(blankNil(row.Phone)).
					SetCustom(map[string]any{}).Save(ctx)
				if err != nil {
					return nil, err
				}
				res.Created++
			default:
				u := ct.Update().SetFirstName(strings.TrimSpace(row.FirstName)).SetLastName(strings.TrimSpace(row.LastName)).
					SetNillableTitle(blankNil(row.Title)).SetNillableCompany(blankNil(row.Company)).
					SetNillableBio(blankNil(row.Bio)).SetNillableTshirtSize(tshirt(row.Tshirt)).
					SetNillableLinkedinURL(blankNil(row.Linkedin)).SetNillableTwitterURL(blankNil(row.Twitter)).
					SetNillableFacebookURL(blankNil(row.Facebook)).SetNillableWebsiteURL(blankNil(row.Website)).
					SetNillablePhone(blankNil(row.Phone))
				if blankNil(row.Dietary) != nil {
					u.SetDietaryRequirements(dietary(row.Dietary))
				}
				updated, err := u.Save(ctx)
				if err == nil {
					_, err = approveOrganizerEdits(ctx, ct, updated)
				}
				if err != nil {
					return nil, err
				}
				res.Updated++
			}
		}
		return res, nil
	})
}

// blankNil is nil for a missing or blank cell.
func blankNil(s *string) *string {
	if s == nil || strings.TrimSpace(*s) == "" {
		return nil
	}
	v := strings.TrimSpace(*s)
	return &v
}

// dietary reads an import cell: the known values, anything else as other, blank as none.
func dietary(s *string) contact.DietaryRequirements {
	v := blankNil(s)
	if v == nil {
		return contact.DietaryRequirementsNone
	}
	d := contact.DietaryRequirements(strings.ToLower(strings.ReplaceAll(*v, "-", "_")))
	if contact.DietaryRequirementsValidator(d) != nil {
		return contact.DietaryRequirementsOther
	}
	return d
}

// tshirt reads an import cell: a known size or nothing.
func tshirt(s *string) *contact.TshirtSize {
	v := blankNil(s)
	if v == nil {
		return nil
	}
	size := contact.TshirtSize(strings.ToUpper(*v))
	if contact.TshirtSizeValidator(size) != nil {
		return nil
	}
	return &size
}

// InviteSpeakerPortals emails each speaker contact among the ids their portal invitation, once
// per contact ever (docs/rest-api.md: POST E/speakers/invite). Other contacts are left out silently.
func (r *Service) InviteSpeakerPortals(ctx context.Context, eventID string, in model.InviteSpeakerPortalsInput) (*model.InviteSpeakerPortalsResult, error) {
	return inTx(ctx, r, func(ctx context.Context) (*model.InviteSpeakerPortalsResult, error) {
		c := r.ClientOf(ctx)
		ev, err := access.Event(ctx, c, eventID)
		if err != nil {
			return nil, err
		}
		if len(in.ContactIds) == 0 {
			return nil, apperr.Invalid("Choose at least one speaker")
		}
		ids := slices.DeleteFunc(slices.Clone(in.ContactIds), func(id string) bool { return !pid.Plausible(id) })
		// Locking the contacts makes two concurrent invitations of the same speaker send one email.
		contacts, err := c.Contact.Query().
			Where(contact.IDIn(ids...), contact.EventID(ev.ID), mailableSpeaker()).
			Order(ent.Asc(contact.FieldLastName), ent.Asc(contact.FieldFirstName), ent.Asc(contact.FieldID)).
			ForUpdate().All(ctx)
		if err != nil {
			return nil, err
		}
		invited, err := c.EmailLog.Query().
			Where(emaillog.ContactIDIn(ids...), emaillog.Template(email.PortalInvitation)).
			Select(emaillog.FieldContactID).Strings(ctx)
		if err != nil {
			return nil, err
		}
		res := &model.InviteSpeakerPortalsResult{Invitations: []*model.PortalInvitation{}}
		var batch []email.Email
		var pending []*model.PortalInvitation
		for _, ct := range contacts {
			inv := &model.PortalInvitation{ContactID: ct.ID, ContactName: fullName(ct.FirstName, ct.LastName), PortalPath: "/portal",
				AlreadyInvited: slices.Contains(invited, ct.ID)}
			res.Invitations = append(res.Invitations, inv)
			if inv.AlreadyInvited {
				continue
			}
			pending = append(pending, inv)
			batch = append(batch, email.Email{EventID: ev.ID, ContactID: new(ct.ID), Type: emaillog.TypeCustom, To: ct.Email,
				Template: email.PortalInvitation, Data: email.Data{EventName: ev.Name, FirstName: ct.FirstName, Path: "/portal"}})
		}
		rows, err := r.Outbox.Queue(ctx, batch...)
		if err != nil {
			return nil, err
		}
		for i, row := range rows {
			pending[i].LogID = new(row.ID)
		}
		res.Sent = len(rows)
		return res, nil
	})
}

// Speakers answers Event.speakers: the event's contacts as a connection, by last name — all but
// submitters who are not speakers yet (listedContact). Under a page of events the events' pages
// are read together (speakersInList).
func (r *Service) Speakers(ctx context.Context, ev *ent.Event, page Page, orderBy *ent.ContactOrder,
	where *ent.ContactWhereInput) (*ent.ContactConnection, error) {
	return r.contactsOf(ctx, ev, listedContact(), page, orderBy, where)
}

// Submitters answers Event.submitters: the contacts who came to the event by sending a proposal,
// accepted or not, as Speakers pages them.
func (r *Service) Submitters(ctx context.Context, ev *ent.Event, page Page, orderBy *ent.ContactOrder,
	where *ent.ContactWhereInput) (*ent.ContactConnection, error) {
	return r.contactsOf(ctx, ev, contact.ParticipationEQ(contact.ParticipationSubmitter), page, orderBy, where)
}

// contactsOf is a page of the event's contacts within scope.
func (r *Service) contactsOf(ctx context.Context, ev *ent.Event, scope predicate.Contact, page Page, orderBy *ent.ContactOrder,
	where *ent.ContactWhereInput) (*ent.ContactConnection, error) {
	after, first, before, last := page.After, page.First, page.Before, page.Last
	if orderBy == nil {
		orderBy = &ent.ContactOrder{Direction: entgql.OrderDirectionAsc, Field: ent.ContactOrderFieldLastName}
	}
	if underList(ctx) {
		if conn, ok, err := r.speakersInList(ctx, ev, scope, after, first, before, last, *orderBy, where); ok {
			return r.prefetchSpeakers(ctx, ev.ID, conn, err)
		}
	}
	conn, err := r.ClientOf(ctx).Contact.Query().Where(contact.EventID(ev.ID), scope).
		Paginate(ctx, after, first, before, last, ent.WithContactOrder(orderBy), ent.WithContactFilter(where.Filter))
	return r.prefetchSpeakers(ctx, ev.ID, conn, err)
}

// prefetchSpeakers loads the resources and pipelines of a page of speakers in one batch each when
// the query asks for them, as prefetchSessions does for sessions: left to each speaker's field, a
// busy machine starts some of them after the loader's wait, and the batch splits.
func (r *Service) prefetchSpeakers(ctx context.Context, eventID string, conn *ent.ContactConnection, err error) (*ent.ContactConnection, error) {
	if err != nil || conn == nil || len(conn.Edges) == 0 {
		return conn, err
	}
	if selected(ctx, "edges", "node", "resources") {
		keys := mapAll(conn.Edges, func(e *ent.ContactEdge) eventItem { return eventItem{eventID, e.Node.ID} })
		if _, err := r.loaders(ctx).contactResources.LoadAll(ctx, keys); err != nil {
			return nil, err
		}
	}
	if selected(ctx, "edges", "node", "pipeline") {
		ids := mapAll(conn.Edges, func(e *ent.ContactEdge) string { return e.Node.ID })
		if _, err := r.loaders(ctx).pipelines.LoadAll(ctx, ids); err != nil {
			return nil, err
		}
	}
	return conn, nil
}

// speakerDirectories answers Event.speakerDirectory for a page of events: every speaker of each
// event with their sessions, tasks, files and latest emails, and the speakers as CSV — five
// queries, whatever the number of events and speakers.
func (r *Service) speakerDirectories(ctx context.Context, evs []*ent.Event) ([]*model.SpeakerDirectory, error) {
	c := r.ClientOf(ctx)
	events := eventIDs(evs)
	contacts, err := c.Contact.Query().Where(contact.EventIDIn(events...), speakerOfEvent()).
		Order(ent.Asc(contact.FieldLastName), ent.Asc(contact.FieldFirstName), ent.Asc(contact.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	// Rows are found by contact id: a contact belongs to one event.
	byID := map[string]*model.SpeakerRow{}
	for _, ct := range contacts {
		byID[ct.ID] = &model.SpeakerRow{Contact: ct, Sessions: []*model.SessionRef{}, Tasks: []*model.SpeakerTask{}, Files: []*model.SpeakerFile{},
			Emails: []*model.SpeakerEmail{}, ProfileChanges: []*model.ProfileChange{}}
	}
	q := r.sql(ctx)
	if err := eachRow(ctx, q, `SELECT p.contact_id, s.id, s.code, s.title FROM submission_participants p
JOIN submissions s ON s.id = p.submission_id WHERE s.event_id = ANY($1) ORDER BY s.number`, events,
		func(scan func(...any) error) error {
			var contactID string
			ref := &model.SessionRef{}
			if err := scan(&contactID, &ref.ID, &ref.Code, &ref.Title); err != nil {
				return err
			}
			if row := byID[contactID]; row != nil {
				row.Sessions = append(row.Sessions, ref)
			}
			return nil
		}); err != nil {
		return nil, err
	}
	// A speaker's tasks: their own, and their sessions' session-wide ones.
	if err := eachRow(ctx, q, `SELECT coalesce(a.contact_id, p.contact_id), a.id, t.title, a.status, t.due_date, s.code
FROM task_assignments a JOIN task_templates t ON t.id = a.template_id JOIN submissions s ON s.id = a.submission_id
LEFT JOIN submission_participants p ON a.contact_id IS NULL AND p.submission_id = a.submission_id
WHERE s.event_id = ANY($1) ORDER BY t.position, s.number`, events,
		func(scan func(...any) error) error {
			var contactID *string
			var status string
			var due *time.Time
			t := &model.SpeakerTask{}
			if err := scan(&contactID, &t.ID, &t.Title, &status, &due, &t.SubmissionCode); err != nil {
				return err
			}
			t.Status, t.DueDate = model.TaskStatus(status), scalar.AtPtr(due)
			if contactID != nil && byID[*contactID] != nil {
				byID[*contactID].Tasks = append(byID[*contactID].Tasks, t)
			}
			return nil
		}); err != nil {
		return nil, err
	}
	if err := eachRow(ctx, q, `SELECT coalesce(a.contact_id, p.contact_id), a.id, a.file_name, f.label, a.uploaded_at,
       coalesce(a.content_type, ''), coalesce(a.size, 0), c.first_name, c.last_name
FROM deliverable_assignments a JOIN file_requirements f ON f.id = a.requirement_id
JOIN submissions s ON s.id = a.submission_id
LEFT JOIN submission_participants p ON a.contact_id IS NULL AND p.submission_id = a.submission_id
JOIN contacts c ON c.id = coalesce(a.contact_id, p.contact_id)
WHERE s.event_id = ANY($1) AND a.status = 'uploaded' ORDER BY a.uploaded_at DESC`, events,
		func(scan func(...any) error) error {
			var contactID, first, last string
			var at time.Time
			f := &model.SpeakerFile{Kind: "request"}
			if err := scan(&contactID, &f.ID, &f.Filename, &f.Label, &at, &f.ContentType, &f.Size, &first, &last); err != nil {
				return err
			}
			f.VersionID, f.UploadedAt, f.UploaderName = f.ID, scalar.At(at), fullName(first, last)
			if row := byID[contactID]; row != nil {
				row.Files = append(row.Files, f)
			}
			return nil
		}); err != nil {
		return nil, err
	}
	// The ten latest emails of each speaker.
	if err := eachRow(ctx, q, `SELECT contact_id, id, subject, type, status, sent_at FROM (
  SELECT e.*, row_number() OVER (PARTITION BY e.contact_id ORDER BY e.created_at DESC, e.id DESC) AS n
  FROM email_log e WHERE e.event_id = ANY($1) AND e.contact_id IS NOT NULL) x
WHERE n <= 10 ORDER BY contact_id, n`, events,
		func(scan func(...any) error) error {
			var contactID string
			var sent *time.Time
			e := &model.SpeakerEmail{}
			if err := scan(&contactID, &e.ID, &e.Subject, &e.Type, &e.Status, &sent); err != nil {
				return err
			}
			e.SentAt = scalar.AtPtr(sent)
			if row := byID[contactID]; row != nil {
				row.Emails = append(row.Emails, e)
			}
			return nil
		}); err != nil {
		return nil, err
	}
	byEvent := group(contacts, func(ct *ent.Contact) string { return ct.EventID })
	out := make([]*model.SpeakerDirectory, len(evs))
	for i, ev := range evs {
		out[i] = &model.SpeakerDirectory{Rows: mapAll(byEvent[ev.ID], func(ct *ent.Contact) *model.SpeakerRow { return byID[ct.ID] }),
			CSV: speakersCSV(byEvent[ev.ID])}
	}
	return out, nil
}

// csvCell neutralises a cell a spreadsheet would run as a formula — one beginning with =, +, -,
// @, a tab or a carriage return (OWASP's "CSV injection") — with a leading single quote, which
// spreadsheets show as text. Speakers type their own names and bios, so any cell may be hostile.
// Every CSV Podium writes passes its cells through here.
func csvCell(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

// speakersCSV is the directory's export, one speaker a line.
func speakersCSV(contacts []*ent.Contact) string {
	var b strings.Builder
	w := csv.NewWriter(&b)
	w.UseCRLF = true
	_ = w.Write([]string{"first_name", "last_name", "email", "title", "company", "bio", "dietary", "tshirt",
		"linkedin", "twitter", "facebook", "website", "phone"})
	str := func(s *string) string {
		if s == nil {
			return ""
		}
		return *s
	}
	for _, ct := range contacts {
		size := ""
		if ct.TshirtSize != nil {
			size = string(*ct.TshirtSize)
		}
		row := []string{ct.FirstName, ct.LastName, ct.Email, str(ct.Title), str(ct.Company), str(ct.Bio),
			string(ct.DietaryRequirements), size, str(ct.LinkedinURL), str(ct.TwitterURL), str(ct.FacebookURL),
			str(ct.WebsiteURL), str(ct.Phone)}
		for i := range row {
			row[i] = csvCell(row[i])
		}
		_ = w.Write(row)
	}
	w.Flush()
	return strings.TrimSuffix(b.String(), "\r\n")
}
