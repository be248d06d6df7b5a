package access

// Rule says who may run a root field of the GraphQL schema (docs/people.md). Every query and
// mutation field has one in Rules; a field without one is refused to people (RootField) and
// fails the authorization matrix test (rest/authz_matrix_test.go), so a new field cannot ship
// without a decision.
type Rule int

const (
	// Admins may run it: API keys, and people who are owner or admin of the organization.
	Admins Rule = iota + 1
	// Staff may run it: admins, and organization members (who read and change nothing, so only
	// queries have this rule).
	Staff
	// Anyone authenticated may run it, people with no organization role included: it answers
	// about the caller alone.
	Anyone
)

// Rules is who may run each root field, keyed "Query.name", "Mutation.name" or "Subscription.name". Reviewer and
// speaker access to their own records is not built yet (docs/people.md): until it is, no field
// reaches them beyond Anyone.
var Rules = map[string]Rule{
	"Query.__schema":                    Anyone,
	"Query.__type":                      Anyone,
	"Query.viewer":                      Anyone,
	"Query.node":                        Staff,
	"Query.nodes":                       Staff,
	"Query.events":                      Staff,
	"Query.event":                       Staff,
	"Query.organization":                Staff,
	"Subscription.eventChanges":         Staff,
	"Subscription.myReviewChanges":      Anyone,
	"Mutation.createEvent":              Admins,
	"Mutation.updateEvent":              Admins,
	"Mutation.lockSpeakerContent":       Admins,
	"Mutation.unlockSpeakerContent":     Admins,
	"Mutation.scheduleSession":          Admins,
	"Mutation.publishAgenda":            Admins,
	"Mutation.unpublishAgenda":          Admins,
	"Mutation.saveAgendaBlock":          Admins,
	"Mutation.deleteAgendaBlock":        Admins,
	"Mutation.sendCalendarInvites":      Admins,
	"Mutation.saveLibraryItem":          Admins,
	"Mutation.deleteLibraryItem":        Admins,
	"Mutation.inviteOrganizationMember": Admins,
	"Mutation.saveTaskTemplate":         Admins,
	"Mutation.deleteTaskTemplate":       Admins,
	"Mutation.saveFileRequirement":      Admins,
	"Mutation.deleteFileRequirement":    Admins,
	"Mutation.setTaskStatus":            Admins,
	"Mutation.recordDeliverableUpload":  Admins,
	"Mutation.clearDeliverableUpload":   Admins,
	"Mutation.createResource":           Admins,
	"Mutation.updateResource":           Admins,
	"Mutation.deleteResource":           Admins,
	"Mutation.attachResourceFile":       Admins,
	"Mutation.removeResourceFile":       Admins,
	"Mutation.uploadEventImage":         Admins,
	"Mutation.removeEventImage":         Admins,
	"Mutation.uploadSpeakerHeadshot":    Admins,
	"Mutation.removeSpeakerHeadshot":    Admins,
	"Mutation.uploadDeliverable":        Admins,
	"Mutation.removeDeliverable":        Admins,
	"Mutation.reorderResources":         Admins,
	"Mutation.saveReviewRound":          Admins,
	"Mutation.addReviewer":              Admins,
	"Mutation.assignReviews":            Admins,
	"Mutation.unassignReview":           Admins,
	"Mutation.autoDistributeReviews":    Admins,
	"Mutation.setReviewerTracks":        Admins,
	"Mutation.sendReviewReminders":      Admins,
	"Mutation.submitReviewAnswers":      Admins,
	"Mutation.recuseReview":             Admins,
	"Mutation.generateAiReview":         Admins,
	"Mutation.overrideAiReview":         Admins,
	"Mutation.scoreRoundWithAi":         Admins,
	"Mutation.createSession":            Admins,
	"Mutation.cancelSession":            Admins,
	"Mutation.reinstateSession":         Admins,
	"Mutation.deleteSession":            Admins,
	"Mutation.setSessionSpeakers":       Admins,
	"Mutation.saveSpeaker":              Admins,
	"Mutation.setSpeakerWorkflow":       Admins,
	"Mutation.setSpeakerAvailability":   Admins,
	"Mutation.importSpeakers":           Admins,
	"Mutation.inviteSpeakerPortals":     Admins,
	"Mutation.createSubmission":         Admins,
	"Mutation.changeSubmissionStatus":   Admins,
	"Mutation.decideSubmissions":        Admins,
	"Mutation.informSubmissions":        Admins,
	"Mutation.cancelDecisionSend":       Admins,
	"Mutation.createForm":               Admins,
	"Mutation.updateForm":               Admins,
	"Mutation.openForm":                 Admins,
	"Mutation.closeForm":                Admins,
	"Mutation.deleteForm":               Admins,
	// A speaker's own proposals: the operations find them through the caller's address.
	"Query.cfpForm":             Anyone,
	"Query.myProposals":         Anyone,
	"Mutation.saveProposal":     Anyone,
	"Mutation.withdrawProposal": Anyone,
	"Mutation.deleteProposal":   Anyone,
	// Invitations to co-present: the caller's own, found by their address.
	"Query.myCoSpeakerInvitations":       Anyone,
	"Mutation.answerCoSpeakerInvitation": Anyone,
	// Webhook endpoints are the organization's configuration, with URLs and delivery logs that
	// name its systems: admins only, members included out.
	"Query.webhooks":               Admins,
	"Query.webhook":                Admins,
	"Query.webhookDeliveries":      Admins,
	"Query.webhookEventTypes":      Admins,
	"Mutation.createWebhook":       Admins,
	"Mutation.updateWebhook":       Admins,
	"Mutation.deleteWebhook":       Admins,
	"Mutation.rotateWebhookSecret": Admins,
	"Mutation.redeliverWebhook":    Admins,
	"Mutation.redeliverWebhooks":   Admins,
	// The reviewer desk and the speaker's own records answer about the caller alone (their own
	// assignments, contacts and sessions; nothing for an API key or a person without that role),
	// so anyone signed in may ask: the operations decide what is theirs (docs/people.md).
	// A speaker's own availability: the operations find their contact through the caller's address.
	"Query.myAvailability":        Anyone,
	"Mutation.setMyAvailability":  Anyone,
	"Query.myReviewAssignments":   Anyone,
	"Query.myReviewAssignment":    Anyone,
	"Mutation.submitMyReview":     Anyone,
	"Mutation.recuseMyAssignment": Anyone,
	"Query.mySpeaking":            Anyone,
	"Query.mySpeakerSession":      Anyone,
	"Query.mySpeakerContact":      Anyone,
	// A speaker's changes to their own records (docs/portal.md).
	"Mutation.confirmMyParticipation": Anyone,
	"Mutation.declineMyParticipation": Anyone,
	"Mutation.setMyTaskDone":          Anyone,
	"Mutation.uploadMyDeliverable":    Anyone,
	"Mutation.removeMyDeliverable":    Anyone,
	// A speaker's own profile and session content (docs/profile-review.md); organizers review.
	"Query.myProfile":                 Anyone,
	"Query.mySessionContent":          Anyone,
	"Mutation.updateMyProfile":        Anyone,
	"Mutation.uploadMyHeadshot":       Anyone,
	"Mutation.updateMySessionContent": Anyone,
	"Mutation.approveSpeakerProfile":  Admins,
	"Mutation.rejectSpeakerProfile":   Admins,
	"Mutation.approveSessionContent":  Admins,
	"Mutation.rejectSessionContent":   Admins,
	// Campaigns (docs/campaigns.md): the communications view shows every speaker's address and
	// every message sent; sending mails the event's speakers. Admins only, as in the original.
	"Query.communications":  Admins,
	"Mutation.sendCampaign": Admins,
	// Suppressed addresses (docs/deliverability.md) are the organization's recipients' choices and
	// dead mailboxes: the admins who send campaigns read and change them.
	"Query.emailSuppressions":         Admins,
	"Mutation.addEmailSuppression":    Admins,
	"Mutation.removeEmailSuppression": Admins,
	// Emails organizers own (docs/emails.md): the wording of an event's emails and contacts' access links.
	"Query.emailTemplates":         Staff,
	"Query.emailTemplatePreview":   Staff,
	"Mutation.saveEmailTemplate":   Admins,
	"Mutation.resetEmailTemplate":  Admins,
	"Mutation.revokeContactAccess": Admins,
	// Chasers (docs/chasers.md) mail speakers and reviewers by themselves: admins set them.
	"Mutation.saveChasers": Admins,
	// The organization's contact book (docs/crm.md): people, notes and who wrote them, for
	// admins only, members included out.
	"Query.contacts":             Admins,
	"Query.contact":              Admins,
	"Mutation.createContact":     Admins,
	"Mutation.updateContact":     Admins,
	"Mutation.importContacts":    Admins,
	"Mutation.addContactTag":     Admins,
	"Mutation.removeContactTag":  Admins,
	"Mutation.addContactNote":    Admins,
	"Mutation.addContactToEvent": Admins,
	"Mutation.mergeContacts":     Admins,
	// The pipeline and segments (docs/crm-pipeline.md): the organization's contact book, which
	// members do not see, like the webhooks.
	"Query.pipeline":                 Admins,
	"Query.segments":                 Admins,
	"Query.segment":                  Admins,
	"Mutation.savePipelineStage":     Admins,
	"Mutation.reorderPipelineStages": Admins,
	"Mutation.deletePipelineStage":   Admins,
	"Mutation.addPipelineCard":       Admins,
	"Mutation.movePipelineCard":      Admins,
	"Mutation.saveSegment":           Admins,
	// Agenda drafts are the organizers' working plans, and accepting one changes the schedule:
	// admins only (docs/agenda-drafts.md).
	"Query.agendaDrafts":           Admins,
	"Mutation.generateAgendaDraft": Admins,
	"Mutation.changeAgendaDraft":   Admins,
	"Mutation.acceptAgendaDraft":   Admins,
	// The public program and widgets (docs/widgets.md): the program is public once published, but
	// this read names unpublished events; widgets are the organization's configuration.
	"Query.program":         Admins,
	"Query.widgets":         Admins,
	"Mutation.createWidget": Admins,
	"Mutation.updateWidget": Admins,
	// API keys are the organization's credentials (docs/rest-api.md §2): owners and admins manage
	// them, members included out; keys need write (KeyRules) and give no more than they hold.
	"Query.apiKeys":         Admins,
	"Mutation.createApiKey": Admins,
	"Mutation.revokeApiKey": Admins,
	"Mutation.rotateApiKey": Admins,
}
