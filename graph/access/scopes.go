package access

import (
	"context"
	"net/http"
	"slices"
	"strings"

	"github.com/podium/podium/ent/schema/viewer"
	"github.com/podium/podium/graph/apperr"
)

// Scope is a power an API key holds (docs/rest-api.md §2). A key holds a non-empty set of them;
// keys of the command line, and keys made before scopes existed, hold all three. Scopes bind API
// keys only: signed-in people have roles (Rules).
type Scope string

const (
	// ScopeRead runs queries and GET routes: it reads the organization's data.
	ScopeRead Scope = "read"
	// ScopeWrite runs mutations and the routes that change data. It implies nothing else: a key
	// with write alone cannot read back what it wrote.
	ScopeWrite Scope = "write"
	// ScopeSendMail lets a change send email to people (invitations, decisions, campaigns,
	// calendar invites, reminders); it is needed beside write.
	ScopeSendMail Scope = "send_mail"
)

// Scopes are every scope, in the order they are listed.
var Scopes = []Scope{ScopeRead, ScopeWrite, ScopeSendMail}

// Need is what an API key must hold to run a root field.
type Need int

const (
	// NeedRead needs read.
	NeedRead Need = iota + 1
	// NeedWrite needs write.
	NeedWrite
	// NeedSendMail needs write and send_mail: the field emails people.
	NeedSendMail
	// NeedSendMailIfAsked needs write, and send_mail when the call asks for email (deciding with
	// inform, cancelling or reinstating a session while telling its speakers): the operation
	// checks that with RequireSendMail before it writes.
	NeedSendMailIfAsked
)

// Reach is how far a root field acts: inside events named in its arguments, or on the
// organization as a whole.
type Reach bool

const (
	// InEvent fields act on the events their arguments name (the operations check each with
	// Event), or answer about the caller alone: a key confined to one event may run them.
	InEvent Reach = false
	// Organization fields act on the organization as a whole (its contact book, webhooks,
	// members, any node by id): a key confined to one event may not run them.
	Organization Reach = true
)

// KeyRule is what an API key needs to run a root field, and how far the field reaches.
type KeyRule struct {
	Need  Need
	Reach Reach
}

// KeyRules classify every root field of the GraphQL schema for API keys, keyed as Rules:
// queries and subscriptions need read, mutations write, mutations that email people send_mail
// too. REST routes take the rule of their operation's field (KeyRoute). A field without an
// entry is refused to keys, and TestKeyRulesCoverTheSchema fails until it has one.
var KeyRules = map[string]KeyRule{
	"Query.node":                         {NeedRead, Organization},
	"Query.nodes":                        {NeedRead, Organization},
	"Query.events":                       {NeedRead, InEvent},
	"Query.agendaDrafts":                 {NeedRead, InEvent},
	"Query.myAvailability":               {NeedRead, InEvent},
	"Query.communications":               {NeedRead, InEvent},
	"Query.cfpForm":                      {NeedRead, InEvent},
	"Query.myProposals":                  {NeedRead, InEvent},
	"Query.myCoSpeakerInvitations":       {NeedRead, InEvent},
	"Query.contacts":                     {NeedRead, Organization},
	"Query.contact":                      {NeedRead, Organization},
	"Query.emailSuppressions":            {NeedRead, Organization},
	"Query.emailTemplates":               {NeedRead, InEvent},
	"Query.emailTemplatePreview":         {NeedRead, InEvent},
	"Query.event":                        {NeedRead, InEvent},
	"Query.organization":                 {NeedRead, Organization},
	"Query.viewer":                       {NeedRead, InEvent},
	"Query.pipeline":                     {NeedRead, Organization},
	"Query.mySpeaking":                   {NeedRead, InEvent},
	"Query.mySpeakerSession":             {NeedRead, InEvent},
	"Query.mySpeakerContact":             {NeedRead, InEvent},
	"Query.myProfile":                    {NeedRead, InEvent},
	"Query.mySessionContent":             {NeedRead, InEvent},
	"Query.myReviewAssignments":          {NeedRead, InEvent},
	"Query.myReviewAssignment":           {NeedRead, InEvent},
	"Query.segments":                     {NeedRead, Organization},
	"Query.segment":                      {NeedRead, Organization},
	"Query.webhooks":                     {NeedRead, Organization},
	"Query.webhook":                      {NeedRead, Organization},
	"Query.webhookDeliveries":            {NeedRead, Organization},
	"Query.webhookEventTypes":            {NeedRead, Organization},
	"Query.program":                      {NeedRead, InEvent},
	"Query.widgets":                      {NeedRead, InEvent},
	"Query.__schema":                     {NeedRead, InEvent},
	"Query.__type":                       {NeedRead, InEvent},
	"Subscription.eventChanges":          {NeedRead, InEvent},
	"Subscription.myReviewChanges":       {NeedRead, InEvent},
	"Mutation.createEvent":               {NeedWrite, Organization},
	"Mutation.updateEvent":               {NeedWrite, InEvent},
	"Mutation.lockSpeakerContent":        {NeedWrite, InEvent},
	"Mutation.unlockSpeakerContent":      {NeedWrite, InEvent},
	"Mutation.scheduleSession":           {NeedWrite, InEvent},
	"Mutation.publishAgenda":             {NeedSendMail, InEvent},
	"Mutation.unpublishAgenda":           {NeedWrite, InEvent},
	"Mutation.sendCalendarInvites":       {NeedSendMail, InEvent},
	"Mutation.saveAgendaBlock":           {NeedWrite, InEvent},
	"Mutation.deleteAgendaBlock":         {NeedWrite, InEvent},
	"Mutation.generateAgendaDraft":       {NeedWrite, InEvent},
	"Mutation.changeAgendaDraft":         {NeedWrite, InEvent},
	"Mutation.acceptAgendaDraft":         {NeedWrite, InEvent},
	"Mutation.setSpeakerAvailability":    {NeedWrite, InEvent},
	"Mutation.setMyAvailability":         {NeedWrite, InEvent},
	"Mutation.sendCampaign":              {NeedSendMail, InEvent},
	"Mutation.saveProposal":              {NeedSendMail, InEvent},
	"Mutation.answerCoSpeakerInvitation": {NeedWrite, InEvent},
	"Mutation.deleteProposal":            {NeedWrite, InEvent},
	"Mutation.withdrawProposal":          {NeedWrite, InEvent},
	"Mutation.saveChasers":               {NeedWrite, InEvent},
	"Mutation.createContact":             {NeedWrite, Organization},
	"Mutation.updateContact":             {NeedWrite, Organization},
	"Mutation.importContacts":            {NeedWrite, Organization},
	"Mutation.addContactTag":             {NeedWrite, Organization},
	"Mutation.removeContactTag":          {NeedWrite, Organization},
	"Mutation.addContactNote":            {NeedWrite, Organization},
	"Mutation.addContactToEvent":         {NeedWrite, InEvent},
	"Mutation.mergeContacts":             {NeedWrite, Organization},
	"Mutation.informSubmissions":         {NeedSendMail, InEvent},
	"Mutation.cancelDecisionSend":        {NeedWrite, InEvent},
	"Mutation.addEmailSuppression":       {NeedWrite, Organization},
	"Mutation.removeEmailSuppression":    {NeedWrite, Organization},
	"Mutation.saveEmailTemplate":         {NeedWrite, InEvent},
	"Mutation.resetEmailTemplate":        {NeedWrite, InEvent},
	"Mutation.revokeContactAccess":       {NeedWrite, Organization},
	"Mutation.attachResourceFile":        {NeedWrite, InEvent},
	"Mutation.removeResourceFile":        {NeedWrite, InEvent},
	"Mutation.uploadEventImage":          {NeedWrite, InEvent},
	"Mutation.removeEventImage":          {NeedWrite, InEvent},
	"Mutation.uploadSpeakerHeadshot":     {NeedWrite, InEvent},
	"Mutation.removeSpeakerHeadshot":     {NeedWrite, InEvent},
	"Mutation.uploadDeliverable":         {NeedWrite, InEvent},
	"Mutation.removeDeliverable":         {NeedWrite, InEvent},
	"Mutation.createForm":                {NeedWrite, InEvent},
	"Mutation.updateForm":                {NeedWrite, InEvent},
	"Mutation.openForm":                  {NeedWrite, InEvent},
	"Mutation.closeForm":                 {NeedWrite, InEvent},
	"Mutation.deleteForm":                {NeedWrite, InEvent},
	"Mutation.saveLibraryItem":           {NeedWrite, InEvent},
	"Mutation.deleteLibraryItem":         {NeedWrite, InEvent},
	"Mutation.inviteOrganizationMember":  {NeedSendMail, Organization},
	"Mutation.savePipelineStage":         {NeedWrite, Organization},
	"Mutation.reorderPipelineStages":     {NeedWrite, Organization},
	"Mutation.deletePipelineStage":       {NeedWrite, Organization},
	"Mutation.addPipelineCard":           {NeedWrite, Organization},
	"Mutation.movePipelineCard":          {NeedWrite, Organization},
	"Mutation.confirmMyParticipation":    {NeedSendMail, InEvent},
	"Mutation.declineMyParticipation":    {NeedSendMail, InEvent},
	"Mutation.setMyTaskDone":             {NeedWrite, InEvent},
	"Mutation.uploadMyDeliverable":       {NeedWrite, InEvent},
	"Mutation.removeMyDeliverable":       {NeedWrite, InEvent},
	"Mutation.updateMyProfile":           {NeedWrite, InEvent},
	"Mutation.uploadMyHeadshot":          {NeedWrite, InEvent},
	"Mutation.approveSpeakerProfile":     {NeedWrite, InEvent},
	"Mutation.rejectSpeakerProfile":      {NeedWrite, InEvent},
	"Mutation.updateMySessionContent":    {NeedWrite, InEvent},
	"Mutation.approveSessionContent":     {NeedWrite, InEvent},
	"Mutation.rejectSessionContent":      {NeedWrite, InEvent},
	"Mutation.saveTaskTemplate":          {NeedWrite, InEvent},
	"Mutation.deleteTaskTemplate":        {NeedWrite, InEvent},
	"Mutation.saveFileRequirement":       {NeedWrite, InEvent},
	"Mutation.deleteFileRequirement":     {NeedWrite, InEvent},
	"Mutation.setTaskStatus":             {NeedWrite, InEvent},
	"Mutation.recordDeliverableUpload":   {NeedWrite, InEvent},
	"Mutation.clearDeliverableUpload":    {NeedWrite, InEvent},
	"Mutation.createResource":            {NeedWrite, InEvent},
	"Mutation.updateResource":            {NeedWrite, InEvent},
	"Mutation.deleteResource":            {NeedWrite, InEvent},
	"Mutation.reorderResources":          {NeedWrite, InEvent},
	"Mutation.saveReviewRound":           {NeedWrite, InEvent},
	"Mutation.addReviewer":               {NeedSendMail, InEvent},
	"Mutation.assignReviews":             {NeedWrite, InEvent},
	"Mutation.unassignReview":            {NeedWrite, InEvent},
	"Mutation.autoDistributeReviews":     {NeedWrite, InEvent},
	"Mutation.setReviewerTracks":         {NeedWrite, InEvent},
	"Mutation.sendReviewReminders":       {NeedSendMail, InEvent},
	"Mutation.submitReviewAnswers":       {NeedWrite, InEvent},
	"Mutation.recuseReview":              {NeedWrite, InEvent},
	"Mutation.generateAiReview":          {NeedWrite, InEvent},
	"Mutation.overrideAiReview":          {NeedWrite, InEvent},
	"Mutation.scoreRoundWithAi":          {NeedWrite, InEvent},
	"Mutation.submitMyReview":            {NeedWrite, InEvent},
	"Mutation.recuseMyAssignment":        {NeedWrite, InEvent},
	"Mutation.saveSegment":               {NeedWrite, Organization},
	"Mutation.createSession":             {NeedWrite, InEvent},
	"Mutation.cancelSession":             {NeedSendMailIfAsked, InEvent},
	"Mutation.reinstateSession":          {NeedSendMailIfAsked, InEvent},
	"Mutation.deleteSession":             {NeedWrite, InEvent},
	"Mutation.setSessionSpeakers":        {NeedWrite, InEvent},
	"Mutation.saveSpeaker":               {NeedWrite, InEvent},
	"Mutation.setSpeakerWorkflow":        {NeedWrite, InEvent},
	"Mutation.importSpeakers":            {NeedWrite, InEvent},
	"Mutation.inviteSpeakerPortals":      {NeedSendMail, InEvent},
	"Mutation.createSubmission":          {NeedWrite, InEvent},
	"Mutation.changeSubmissionStatus":    {NeedWrite, InEvent},
	"Mutation.decideSubmissions":         {NeedSendMailIfAsked, InEvent},
	"Mutation.createWebhook":             {NeedWrite, Organization},
	"Mutation.updateWebhook":             {NeedWrite, Organization},
	"Mutation.deleteWebhook":             {NeedWrite, Organization},
	"Mutation.rotateWebhookSecret":       {NeedWrite, Organization},
	"Mutation.redeliverWebhook":          {NeedWrite, Organization},
	"Mutation.redeliverWebhooks":         {NeedWrite, Organization},
	"Mutation.createWidget":              {NeedWrite, InEvent},
	"Mutation.updateWidget":              {NeedWrite, InEvent},
	// Managing keys (docs/rest-api.md §2) is a change of the organization's credentials: a key
	// needs write to list them too. A key confined to one event manages that event's keys.
	"Query.apiKeys":         {NeedWrite, InEvent},
	"Mutation.createApiKey": {NeedWrite, InEvent},
	"Mutation.revokeApiKey": {NeedWrite, InEvent},
	"Mutation.rotateApiKey": {NeedWrite, InEvent},
}

// KeyRoute is the rule of a REST route, derived from KeyRules: the rule of the first of fields
// (the root fields of its operation: those whose description names the route, then the one its
// operation id names) that has an entry, else read for GET and write for the other methods. A
// route outside /events/{eventId} (and the list of events) reaches the organization, unless its
// field says otherwise.
func KeyRoute(method, path string, fields ...string) KeyRule {
	for _, f := range fields {
		if rule, ok := KeyRules[f]; ok {
			return rule
		}
	}
	rule := KeyRule{Need: NeedWrite, Reach: InEvent}
	if method == http.MethodGet {
		rule.Need = NeedRead
	}
	if !strings.HasPrefix(path, "/events/{eventId}") && path != "/events" {
		rule.Reach = Organization
	}
	return rule
}

// ErrOneEvent answers a key confined to one event asking for something of the whole organization.
var ErrOneEvent = apperr.Forbidden("This API key acts on one event only")

// KeyField decides whether the API key of ctx may run the root field object.name by KeyRules.
// Anyone else (a person, background work) passes: scopes do not bind them.
func KeyField(ctx context.Context, object, name string) error {
	if name == "__typename" {
		return nil
	}
	rule, ok := KeyRules[object+"."+name]
	if !ok {
		if v := viewer.FromContext(ctx); v != nil && v.APIKeyID != "" {
			return ErrPersonForbidden
		}
		return nil
	}
	return Key(ctx, rule)
}

// Key decides whether the API key of ctx may run an operation of the rule: it answers 403
// insufficient_scope naming the scope missing, or forbidden for a key confined to one event
// asking for the organization.
func Key(ctx context.Context, rule KeyRule) error {
	v := viewer.FromContext(ctx)
	if v == nil || v.APIKeyID == "" {
		return nil
	}
	need := []Scope{ScopeRead}
	switch rule.Need {
	case NeedWrite, NeedSendMailIfAsked:
		need = []Scope{ScopeWrite}
	case NeedSendMail:
		need = []Scope{ScopeWrite, ScopeSendMail}
	}
	for _, s := range need {
		if !HasScope(v, s) {
			return InsufficientScope(s)
		}
	}
	if rule.Reach == Organization && v.APIKeyEventID != "" {
		return ErrOneEvent
	}
	return nil
}

// RequireSendMail refuses a change about to email people when it is asked by an API key
// without send_mail (the fields of NeedSendMailIfAsked). Call it before writing anything.
func RequireSendMail(ctx context.Context) error {
	v := viewer.FromContext(ctx)
	if v == nil || v.APIKeyID == "" || HasScope(v, ScopeSendMail) {
		return nil
	}
	return InsufficientScope(ScopeSendMail)
}

// ParseScopes checks a key's scopes — at least one, each read, write or send_mail — and returns
// them without duplicates, in the order of Scopes.
func ParseScopes(names []string) ([]string, error) {
	var out []string
	for _, s := range Scopes {
		if slices.Contains(names, string(s)) {
			out = append(out, string(s))
		}
	}
	for _, n := range names {
		if !slices.Contains(Scopes, Scope(n)) {
			return nil, apperr.Invalid("Unknown scope %q: the scopes are read, write and send_mail", n)
		}
	}
	if len(out) == 0 {
		return nil, apperr.Invalid("A key needs at least one scope: read, write or send_mail")
	}
	return out, nil
}

// ScopeNames are the names of scopes.
func ScopeNames(scopes []Scope) []string {
	out := make([]string, len(scopes))
	for i, s := range scopes {
		out[i] = string(s)
	}
	return out
}

// HasScope reports whether the API key of v holds s.
func HasScope(v *viewer.Viewer, s Scope) bool { return slices.Contains(v.APIKeyScopes, string(s)) }

// InsufficientScope is the refusal of a key that lacks scope s: 403 insufficient_scope.
func InsufficientScope(s Scope) error {
	return apperr.New(http.StatusForbidden, apperr.CodeInsufficientScope,
		"This API key lacks the scope "+string(s)+": use a key with "+string(s)+" for this operation")
}
