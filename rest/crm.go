package rest

import (
	"context"
	"net/http"

	"github.com/podium/podium/graph/model"
)

// The organization's contact book (docs/crm.md), at the original API's paths under /contacts.

func (a *API) listContacts(ctx context.Context, q *request) (any, error) {
	var search *string
	if v, ok := q.URL.Query()["q"]; ok && len(v) > 0 {
		search = &v[0]
	}
	dir, err := a.ops.ContactDirectory(ctx, search)
	if err != nil {
		return nil, err
	}
	// The directory streams: tens of megabytes for a large contact book, never whole in memory.
	return &response{status: http.StatusOK, stream: func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(http.StatusOK)
		if _, err := dir.WriteTo(w); err != nil {
			a.log.ErrorContext(ctx, "stream the contact directory", "err", err)
		}
	}}, nil
}

func (a *API) createContact(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.ContactInput](q)
	if err != nil {
		return nil, err
	}
	return a.ops.CreateContact(ctx, in)
}

func (a *API) getContact(ctx context.Context, q *request) (any, error) {
	return a.ops.ContactDetail(ctx, q.param("contactId"))
}

func (a *API) updateContact(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.ContactInput](q)
	if err != nil {
		return nil, err
	}
	return a.ops.UpdateContact(ctx, q.param("contactId"), in)
}

func (a *API) importContacts(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.ImportContactsInput](q)
	if err != nil {
		return nil, err
	}
	return a.ops.ImportContacts(ctx, in)
}

func (a *API) addContactTag(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.AddContactTagInput](q)
	if err != nil {
		return nil, err
	}
	return a.ops.AddContactTag(ctx, q.param("contactId"), in)
}

func (a *API) removeContactTag(ctx context.Context, q *request) (any, error) {
	return a.ops.RemoveContactTag(ctx, q.param("contactId"), q.param("tagId"))
}

func (a *API) addContactNote(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.AddContactNoteInput](q)
	if err != nil {
		return nil, err
	}
	return a.ops.AddContactNote(ctx, q.param("contactId"), in)
}

func (a *API) addContactToEvent(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.AddContactToEventInput](q)
	if err != nil {
		return nil, err
	}
	return a.ops.AddContactToEvent(ctx, q.param("contactId"), in)
}

func (a *API) mergeContacts(ctx context.Context, q *request) (any, error) {
	in, err := bind[model.MergeContactsInput](q)
	if err != nil {
		return nil, err
	}
	return a.ops.MergeContacts(ctx, in)
}
