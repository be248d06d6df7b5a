package operation

import (
	"context"

	"github.com/podium/podium/ent"
	"github.com/podium/podium/graph/model"
)

// SpeakerPipeline answers Contact.pipeline: where a speaker stands, derived from what they and
// the organizers have done (docs/people.md "Speakers and submitters"); nil for a contact who is not
// a speaker. The contacts of a page are read together, in one statement.
func (r *Service) SpeakerPipeline(ctx context.Context, ct *ent.Contact) (*model.SpeakerPipeline, error) {
	return r.loaders(ctx).pipelines.Load(ctx, ct.ID)
}

// pipelineFacts are what a speaker's pipeline is derived from.
type pipelineFacts struct {
	speaker bool
	// accepted counts the accepted submissions they take part in, withdrawn those of them the
	// speaker cancelled.
	accepted, withdrawn int
	confirmed           bool
	// tasks and files count what is still to do: open tasks and outstanding deliverables.
	tasks, files int
	profileReady bool
	// invited says a portal invitation was queued for them, told that an acceptance was
	// announced to them.
	invited, told bool
}

// pipeline derives the stage: withdrawn when every accepted session of theirs was cancelled by
// them; once confirmed, ready with nothing left to do and a complete profile, else onboarding;
// before that invited when they were invited to the portal or told of an acceptance, else added.
func (f pipelineFacts) pipeline() *model.SpeakerPipeline {
	var p model.SpeakerPipeline
	switch {
	case !f.speaker:
		return nil
	case f.accepted > 0 && f.withdrawn == f.accepted:
		p = model.SpeakerPipelineWithdrawn
	case f.confirmed && f.tasks == 0 && f.files == 0 && f.profileReady:
		p = model.SpeakerPipelineReady
	case f.confirmed:
		p = model.SpeakerPipelineOnboarding
	case f.invited || f.told:
		p = model.SpeakerPipelineInvited
	default:
		p = model.SpeakerPipelineAdded
	}
	return &p
}

// pipelineSQL reads the pipeline facts of contacts $1. A task or deliverable is theirs when it is
// assigned to them, or to a session they take part in; a profile is complete with a bio, a photo,
// dietary requirements stated and a T-shirt size.
const pipelineSQL = `
SELECT c.id, c.participation = 'speaker' OR a.total > 0, a.total, a.by_speaker, c.confirmed_at IS NOT NULL,
  (SELECT count(*) FROM task_assignments t WHERE t.status = 'todo'
     AND (t.contact_id = c.id OR (t.contact_id IS NULL AND t.submission_id IN (
       SELECT p.submission_id FROM submission_participants p WHERE p.contact_id = c.id)))),
  (SELECT count(*) FROM deliverable_assignments d WHERE d.status = 'outstanding'
     AND (d.contact_id = c.id OR (d.contact_id IS NULL AND d.submission_id IN (
       SELECT p.submission_id FROM submission_participants p WHERE p.contact_id = c.id)))),
  btrim(COALESCE(c.bio, '')) <> '' AND (c.headshot_url IS NOT NULL OR c.headshot_key IS NOT NULL)
    AND c.dietary_requirements <> 'none' AND c.tshirt_size IS NOT NULL,
  EXISTS (SELECT 1 FROM email_log e WHERE e.contact_id = c.id AND e.template = 'portal_invitation'),
  a.told > 0
FROM contacts c
CROSS JOIN LATERAL (
  SELECT count(*) AS total, count(*) FILTER (WHERE s.cancelled_by = 'speaker') AS by_speaker,
         count(*) FILTER (WHERE s.notified_at IS NOT NULL) AS told
  FROM submission_participants p JOIN submissions s ON s.id = p.submission_id
  WHERE p.contact_id = c.id AND s.status = 'accepted') a
WHERE c.id = ANY($1)`

// speakerPipelines reads the pipelines of contacts ids.
func (r *Service) speakerPipelines(ctx context.Context, ids []string) (map[string]*model.SpeakerPipeline, error) {
	out := make(map[string]*model.SpeakerPipeline, len(ids))
	err := eachRowArgs(ctx, r.sql(ctx), pipelineSQL, []any{ids}, func(scan func(...any) error) error {
		var id string
		var f pipelineFacts
		if err := scan(&id, &f.speaker, &f.accepted, &f.withdrawn, &f.confirmed, &f.tasks, &f.files,
			&f.profileReady, &f.invited, &f.told); err != nil {
			return err
		}
		out[id] = f.pipeline()
		return nil
	})
	return out, err
}
