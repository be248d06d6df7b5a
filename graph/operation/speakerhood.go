package operation

import (
	"github.com/podium/podium/ent/contact"
	"github.com/podium/podium/ent/predicate"
	"github.com/podium/podium/ent/submission"
	"github.com/podium/podium/ent/submissionparticipant"
)

// Who counts as a speaker of an event (docs/people.md "Speakers and submitters"). A contact's
// participation says how it came: added or invited as a speaker, sent a proposal (submitter), or
// an organizer contact. Participation is provenance; taking part in an accepted submission is what
// makes a submitter a speaker — no row changes when it happens, so a tentative acceptance that is
// re-decided leaves nothing behind.

// inAcceptedSubmission holds for contacts taking part in an accepted submission of theirs.
func inAcceptedSubmission() predicate.Contact {
	return contact.HasParticipationsWith(submissionparticipant.HasSubmissionWith(
		submission.StatusEQ(submission.StatusAccepted)))
}

// toldAccepted holds for contacts taking part in an accepted submission whose decision they have
// been told (notified_at set): what mail may assume a person knows.
func toldAccepted() predicate.Contact {
	return contact.HasParticipationsWith(submissionparticipant.HasSubmissionWith(
		submission.StatusEQ(submission.StatusAccepted), submission.NotifiedAtNotNil()))
}

// speakerOfEvent is a speaker in the speaker-facing views organizers read (the directory): a
// contact added as a speaker, or anyone in an accepted submission.
func speakerOfEvent() predicate.Contact {
	return contact.Or(contact.ParticipationEQ(contact.ParticipationSpeaker), inAcceptedSubmission())
}

// mailableSpeaker is a speaker that mail to "the speakers" may reach: added as a speaker, or told
// of an acceptance. A submitter accepted but not yet told hears of it first from the decision
// email, not from a campaign or an invitation.
func mailableSpeaker() predicate.Contact {
	return contact.Or(contact.ParticipationEQ(contact.ParticipationSpeaker), toldAccepted())
}

// listedContact is a contact of Event.speakers: every contact but a submitter none of whose
// submissions is accepted (organizer contacts stay listed, as they always were).
func listedContact() predicate.Contact {
	return contact.Or(contact.ParticipationNEQ(contact.ParticipationSubmitter), inAcceptedSubmission())
}

// mailableSpeakerSQL is mailableSpeaker for hand-written statements over contacts aliased c.
const mailableSpeakerSQL = `(c.participation = 'speaker' OR EXISTS (
    SELECT 1 FROM submission_participants sp JOIN submissions ss ON ss.id = sp.submission_id
    WHERE sp.contact_id = c.id AND ss.status = 'accepted' AND ss.notified_at IS NOT NULL))`
